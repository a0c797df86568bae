// The updater scenarios (conformance/updater, the updater's contract), replayed through the
// client's injectable fetch and clock: each request it makes checked against the script and
// answered as the script says, the clock moved as the script says, and what the client
// announces, keeps in use, stores and waits checked after each step. Tests/ClientTests
// replays the same files on the Swift client.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { dist, repositoryRoot } = require("./helpers");
const { createClient, compileManifest, sha256Hex } = require(path.join(dist, "index.js"));
const { parseStoredEntry } = require(path.join(dist, "storage", "storage.js"));
const { FakeClock } = require("./fake-clock");

const folder = path.join(repositoryRoot, "conformance", "updater");
const files = fs.readdirSync(folder).filter((f) => f.endsWith(".json")).sort();

const realDelay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cache's text in format 1, as the scenario's `start.cache` describes it. */
function cacheText(cache, manifests) {
  const body = JSON.stringify(manifests[cache.manifest]);
  const bytes = new TextEncoder().encode(body);
  const stored = cache.damage === "cut-short" ? body.slice(0, -1) : body;
  return `switchboard-client-cache ${cache.format ?? 1} ${sha256Hex(bytes)} ${bytes.length} ${cache.etag}\n${stored}`;
}

/** What a test sees of an event, in the scenario's words. */
function described(event) {
  if (event.type === "adopted") return { adopted: { version: event.version, source: event.source } };
  const failed = { kind: event.kind };
  if (event.status !== undefined) failed.status = event.status;
  if (event.retryAfter !== undefined) failed.retryAfter = event.retryAfter;
  return { failed };
}

for (const file of files) {
  test(`updater scenario ${file}`, async () => {
    const scenario = JSON.parse(fs.readFileSync(path.join(folder, file), "utf8"));
    const manifests = scenario.manifests;
    const clock = new FakeClock();
    const requests = [];
    const fetch = (url, init) => new Promise((resolve, reject) => {
      const request = { url, init, resolve, reject, done: false };
      requests.push(request);
      init.signal?.addEventListener("abort", () => {
        if (request.done) return;
        request.done = true;
        reject(new Error("aborted"));
      });
    });
    let written = null;
    const start = scenario.start;
    const stored = start.cache ? cacheText(start.cache, manifests) : null;
    const client = createClient({
      server: "https://routes.example.com",
      bundled: start.bundle === undefined ? undefined : JSON.stringify(manifests[start.bundle]),
      // Read as AsyncStorage reads: the events of the start reach a listener subscribed
      // right after createClient.
      storage: { read: async () => stored, write: async (text) => { written = text; } },
      fetch, timers: clock, policy: scenario.policy ?? {},
    });
    const events = [];
    client.subscribe((event) => events.push(described(event)));
    const outstanding = () => requests.filter((r) => !r.done);

    /** Waits until nothing moves: no new request, timer or event for a while. */
    async function settle() {
      let last = "", same = 0;
      for (let i = 0; i < 400 && same < 4; i++) {
        await realDelay(2);
        const now = `${outstanding().length} ${clock.pending().join(",")} ${events.length}`;
        same = now === last ? same + 1 : 0;
        last = now;
      }
    }
    /** What the client does next: a request out at once, a pause of some milliseconds, or nothing. */
    function next() {
      if (outstanding().length > 0) return 0;
      const timers = clock.pending();
      return timers.length === 0 ? "none" : timers[0];
    }
    function check(step, at, seen) {
      if (step.announced !== undefined) assert.deepStrictEqual(seen, step.announced, `${at}: announced`);
      if (step.inUse !== undefined) {
        const m = client.current;
        assert.deepStrictEqual(m === null ? null : { version: m.version, source: m.source }, step.inUse, `${at}: in use`);
      }
      if (step.cached !== undefined) {
        const entry = written === null ? null : parseStoredEntry(written);
        assert.deepStrictEqual(entry === null ? null : { version: JSON.parse(entry.body).version, etag: entry.etag }, step.cached, `${at}: cached`);
      }
      if (step.next !== undefined) {
        const n = next();
        if (step.next === "none") assert.strictEqual(n, "none", `${at}: the client asks nothing more`);
        else assert.ok(n !== "none" && n >= step.next.min && n <= step.next.max, `${at}: the next request after ${n} ms, not within ${JSON.stringify(step.next)}`);
      }
    }

    for (const [index, step] of scenario.steps.entries()) {
      const at = `${file} step ${index + 1}`;
      const before = events.length;
      if (step.expect !== undefined) {
        await settle();
        check(step.expect, at, events.slice(before));
        continue;
      }
      if (step.app !== undefined) {
        const done = client[step.app]();
        await settle();
        await done;
        check(step, at, events.slice(before));
        continue;
      }
      if (step.advance !== undefined) {
        clock.advance(step.advance);
        await settle();
        check(step, at, events.slice(before));
        continue;
      }
      // A request: the pause the client is in runs out first.
      if (outstanding().length === 0) {
        const timers = clock.pending();
        assert.ok(timers.length > 0, `${at}: the client is neither asking nor waiting to`);
        clock.advance(timers[0]);
        await settle();
      }
      const out = outstanding();
      assert.strictEqual(out.length, 1, `${at}: one request out`);
      const request = out[0];
      assert.strictEqual(request.init.method, "GET", at);
      assert.strictEqual(request.url, "https://routes.example.com/v1/manifest", at);
      const header = (name) => {
        const key = Object.keys(request.init.headers).find((k) => k.toLowerCase() === name.toLowerCase());
        return key === undefined ? null : request.init.headers[key];
      };
      const etag = step.request.ifNoneMatch;
      const expectedEtag = etag !== null && typeof etag === "object" ? compileManifest(JSON.stringify(manifests[etag.etagOf])).etag : etag;
      assert.strictEqual(header("If-None-Match"), expectedEtag, `${at}: If-None-Match`);
      assert.strictEqual(header("Prefer"), step.request.prefer, `${at}: Prefer`);
      const answer = step.answer;
      clock.advance(answer.after);
      request.done = true;
      if (answer.error !== undefined) {
        request.reject(new Error(answer.error));
      } else {
        const text = answer.body !== undefined ? JSON.stringify(manifests[answer.body]) : answer.text ?? "";
        const bytes = new TextEncoder().encode(text);
        const headers = answer.headers ?? {};
        request.resolve({
          status: answer.status,
          headers: { get: (name) => { const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase()); return key === undefined ? null : headers[key]; } },
          arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
        });
      }
      await settle();
      check(step, at, events.slice(before));
    }
    await client.stop();
  });
}

test("there are at least 12 updater scenarios", () => {
  assert.ok(files.length >= 12, `${files.length} files in conformance/updater`);
});
