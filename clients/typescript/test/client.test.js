// The updater against the real `switchboard serve` on an ephemeral port, with a front that
// injects faults: the bundled copy first, held polls, every fault reported with the last
// good manifest kept, the lifecycle, storage that survives a kill mid-write.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { dist, repositoryRoot, startServer, startFront, eventually, delay, temporaryFolder } = require("./helpers");
const { createClient, compileManifest } = require(path.join(dist, "index.js"));
const { fileStorage, nodeSha256 } = require(path.join(dist, "node.js"));
// The loop's arithmetic is not public API: read from its module.
const { retryAfterSeconds, backoff, intervalFor } = require(path.join(dist, "updater", "policy.js"));
const { FakeClock } = require("./fake-clock");

const routes = fs.readFileSync(path.join(repositoryRoot, "Tests/ClientTests/Fixtures/conformance-routes.json"), "utf8");
const withVersion = (v) => routes.replace('"version": 7', `"version": ${v}`);
const fast = { wait: 5, initialBackoff: 20, maximumBackoff: 100, minimumInterval: 50, requestTimeout: 5000 };

/** A client and the events it announces. */
function observed(options) {
  const client = createClient(options);
  const events = [];
  client.subscribe((event) => events.push(event));
  return { client, events };
}

test("a first start with the server down resolves with the bundled copy, then adopts the server's manifest and stores it", async (t) => {
  const server = await startServer(withVersion(8));
  const front = await startFront(server.url);
  t.after(async () => { await front.close(); await server.stop(); });
  front.fault = "down";
  const folder = temporaryFolder("storage");
  const storage = fileStorage(path.join(folder, "routes.cache"));
  const { client, events } = observed({ server: front.url, bundled: withVersion(7), storage, policy: fast });
  assert.strictEqual(await client.ready(1000), true);
  assert.strictEqual(client.current.source, "bundle");
  assert.strictEqual(client.current.version, 7);
  assert.strictEqual(client.resolve("https://example.com/p/12").destination, "Product");
  client.start();
  assert.ok(await eventually(() => events.some((e) => e.type === "failed" && e.kind === "unreachable")), JSON.stringify(events));
  assert.strictEqual(client.current.version, 7);
  front.fault = null;
  assert.ok(await eventually(() => client.current.source === "server"), JSON.stringify(events));
  assert.strictEqual(client.current.version, 8);
  await client.stop();
  // The next run starts from storage, whatever the server does.
  front.fault = "down";
  const again = createClient({ server: front.url, bundled: withVersion(7), storage, policy: fast });
  assert.strictEqual(await again.ready(1000), true);
  assert.strictEqual(again.current.source, "cache");
  assert.strictEqual(again.current.version, 8);
  assert.strictEqual(again.current.etag, client.current.etag);
});

test("an edit reaches the client through a held poll, well before the poll's wait", async (t) => {
  const server = await startServer(withVersion(7));
  t.after(() => server.stop());
  const { client, events } = observed({ server: server.url, bundled: withVersion(7), policy: { ...fast, wait: 30 } });
  client.start();
  t.after(() => client.stop());
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1));
  const before = Date.now();
  await server.replace(withVersion(9));
  assert.ok(await eventually(() => client.current.version === 9, 5000));
  assert.ok(Date.now() - before < 5000);
  const last = events[events.length - 1];
  assert.deepStrictEqual({ ...last, etag: undefined }, { type: "adopted", version: 9, etag: undefined, source: "server" });
  assert.match(last.etag, /^"sha256-[0-9a-f]{64}"$/);
});

test("each fault is reported and the last good manifest stays in use", async (t) => {
  const server = await startServer(withVersion(7));
  const front = await startFront(server.url);
  t.after(async () => { await front.close(); await server.stop(); });
  const { client, events } = observed({ server: front.url, policy: fast, sha256: nodeSha256 });
  await client.refresh();
  assert.strictEqual(client.current.source, "server");
  const good = client.current.etag;
  const faults = [
    [{ status: 503, retryAfter: "1" }, { kind: "status", status: 503, retryAfter: 1 }],
    [{ status: 429, retryAfter: new Date(Date.now() + 120000).toUTCString() }, { kind: "status", status: 429 }],
    [{ status: 500 }, { kind: "status", status: 500 }],
    ["truncated", { kind: "unreachable" }],
    ["altered", { kind: "integrity" }],
    ["invalidManifest", { kind: "invalidManifest" }],
    ["html", { kind: "contentType" }],
  ];
  for (const [fault, expected] of faults) {
    front.fault = fault;
    const seen = events.length;
    await client.refresh();
    const failure = events.slice(seen).find((e) => e.type === "failed");
    assert.ok(failure, `${JSON.stringify(fault)}: ${JSON.stringify(events.slice(seen))}`);
    for (const [key, value] of Object.entries(expected)) assert.strictEqual(failure[key], value, `${JSON.stringify(fault)}: ${JSON.stringify(failure)}`);
    if (fault.status === 429) assert.ok(failure.retryAfter >= 118 && failure.retryAfter <= 120, JSON.stringify(failure));
    assert.strictEqual(client.current.etag, good);
    assert.strictEqual(client.resolve("/p/1").destination, "Product");
  }
  front.fault = null;
  await server.replace(withVersion(10));
  await client.refresh();
  assert.strictEqual(client.current.version, 10);
});

test("stop() during a held poll returns in under a second and the server's held count drops; start() follows again", async (t) => {
  const server = await startServer(withVersion(7));
  t.after(() => server.stop());
  const client = createClient({ server: server.url, bundled: withVersion(7), policy: { ...fast, wait: 60 } });
  client.start();
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1));
  const started = Date.now();
  await client.stop();
  assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
  assert.ok(await eventually(async () => (await server.heldPolls()) === 0, 3000));
  await server.replace(withVersion(11));
  await delay(300);
  assert.strictEqual(client.current.version, 7);
  client.start();
  assert.ok(await eventually(() => client.current.version === 11, 5000));
  await client.stop();
});

test("pause() ends the held poll and asks nothing; resume() asks at once", async (t) => {
  const server = await startServer(withVersion(7));
  t.after(() => server.stop());
  const front = await startFront(server.url);
  t.after(() => front.close());
  const client = createClient({ server: front.url, bundled: withVersion(7), policy: { ...fast, wait: 60 } });
  client.start();
  t.after(() => client.stop());
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1));
  await client.pause();
  assert.ok(await eventually(async () => (await server.heldPolls()) === 0, 3000));
  const asked = front.requests;
  await server.replace(withVersion(12));
  await delay(300);
  assert.strictEqual(front.requests, asked + 0, "no request while paused");
  assert.strictEqual(client.current.version, 7);
  const resumed = Date.now();
  client.resume();
  assert.ok(await eventually(() => client.current.version === 12, 3000));
  assert.ok(Date.now() - resumed < 3000);
});

test("behind a proxy that drops Prefer, polls come at the max-age interval, not in a spin", async (t) => {
  const server = await startServer(withVersion(7));
  const front = await startFront(server.url);
  t.after(async () => { await front.close(); await server.stop(); });
  front.fault = "dropsPrefer";
  const clock = new FakeClock();
  const client = createClient({ server: front.url, bundled: withVersion(7), policy: { ...fast, wait: 30, minimumInterval: 2000 }, timers: clock });
  client.start();
  t.after(() => client.stop());
  // The first poll asks to be held, gets an immediate 304 without Preference-Applied, and
  // waits the interval: the manifest's max-age (above the 2 s floor) and up to a tenth
  // more. The only timer left is that pause.
  const maxAge = Number(/max-age=(\d+)/.exec((await fetch(server.url + "/v1/manifest", { method: "HEAD" })).headers.get("cache-control"))[1]) * 1000;
  assert.ok(maxAge >= 2000);
  assert.ok(await eventually(() => clock.pending().length === 1 && clock.pending()[0] >= maxAge), JSON.stringify(clock.pending()));
  const pause = clock.pending()[0];
  assert.ok(pause <= maxAge * 1.1, `${pause} ms for a max-age of ${maxAge} ms`);
  assert.strictEqual(front.requests, 1);
  assert.strictEqual(await server.heldPolls(), 0);
  // Nothing is asked before the pause is over; the next poll comes when it is.
  clock.advance(pause - 1);
  await delay(50);
  assert.strictEqual(front.requests, 1);
  clock.advance(1);
  assert.ok(await eventually(() => front.requests === 2));
});

test("failures back off with full jitter, doubling to the cap, and Retry-After is obeyed, on the client's clock", async (t) => {
  const server = await startServer(withVersion(7));
  const front = await startFront(server.url);
  t.after(async () => { await front.close(); await server.stop(); });
  front.fault = { status: 500 };
  const clock = new FakeClock();
  const policy = { ...fast, initialBackoff: 1000, maximumBackoff: 8000 };
  const { client, events } = observed({ server: front.url, bundled: withVersion(7), policy, timers: clock });
  client.start();
  t.after(() => client.stop());
  const ceilings = [1000, 2000, 4000, 8000, 8000];
  for (let failure = 1; failure <= ceilings.length; failure++) {
    // The retry's pause is the one timer pending once the failure is reported.
    assert.ok(await eventually(() => events.filter((e) => e.type === "failed").length === failure && clock.pending().length === 1));
    const pause = clock.pending()[0];
    assert.ok(pause >= 0 && pause <= ceilings[failure - 1], `failure ${failure}: ${pause} ms`);
    clock.advance(pause);
  }
  // A 503 with Retry-After: exactly that long, whatever the backoff would say.
  const failed = events.filter((e) => e.type === "failed").length;
  front.fault = { status: 503, retryAfter: "7" };
  assert.ok(await eventually(() => events.filter((e) => e.type === "failed").length > failed && clock.pending().length === 1));
  assert.deepStrictEqual(clock.pending(), [7000]);
  assert.strictEqual(events[events.length - 1].retryAfter, 7);
  // Recovered: the next answer ends the failures, and the backoff starts over.
  front.fault = null;
  clock.advance(7000);
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1));
});

test("a proxy giving up on a held poll (502, 504) is asked again at once, not backed off from; the same status at once is a failure", async (t) => {
  for (const status of [504, 502]) {
    const server = await startServer(withVersion(8));
    const front = await startFront(server.url);
    const policy = { ...fast, wait: 2, initialBackoff: 30000, maximumBackoff: 60000 };
    const { client, events } = observed({ server: front.url, bundled: withVersion(7), policy });
    t.after(async () => { await client.stop(); await front.close(); await server.stop(); });
    client.start();
    assert.ok(await eventually(() => client.current.source === "server"), JSON.stringify(events));
    front.fault = { status, after: 1200 };
    const before = front.faults;
    // Three in a row, each asked at once after the last: a backoff of up to 30 s would stall.
    assert.ok(await eventually(() => front.faults >= before + 3, 20000), `${front.faults - before} polls`);
    assert.deepStrictEqual(events.filter((e) => e.type === "failed"), []);
    front.fault = { status };
    assert.ok(await eventually(() => events.some((e) => e.type === "failed" && e.status === status)), JSON.stringify(events));
    await client.stop();
  }
  const { proxyGaveUp } = require(path.join(dist, "updater", "policy.js"));
  const defaults = { wait: 25 };
  assert.strictEqual(proxyGaveUp(defaults, 504, true, 9999), false);
  assert.strictEqual(proxyGaveUp(defaults, 504, true, 10000), true);
  assert.strictEqual(proxyGaveUp(defaults, 504, false, 60000), false);
  assert.strictEqual(proxyGaveUp(defaults, 500, true, 60000), false);
});

test("ready() waits for a first manifest, and says false when none comes in time", async () => {
  const clock = new FakeClock();
  const nothing = createClient({ server: "http://127.0.0.1:9", policy: fast, timers: clock });
  let answer = null;
  nothing.ready(200).then((value) => { answer = value; });
  clock.advance(199);
  await delay(10);
  assert.strictEqual(answer, null);
  clock.advance(1);
  await delay(10);
  assert.strictEqual(answer, false);
  assert.strictEqual(nothing.resolve("/"), null);
  // A storage that reads synchronously (as MMKV does) is in use before createClient returns.
  const entries = [];
  const source = createClient({ server: "http://127.0.0.1:9", bundled: withVersion(7), storage: { read: () => null, write: (v) => { entries.push(v); } } });
  assert.strictEqual(source.current.source, "bundle");
  const sync = createClient({ server: "http://127.0.0.1:9", storage: { read: () => storedText(withVersion(13)), write() {} } });
  assert.strictEqual(sync.current.source, "cache");
  assert.strictEqual(sync.current.version, 13);
});

test("a damaged stored copy is refused and reported; the bundled copy is used", async () => {
  const stored = storedText(withVersion(13)).replace('"version": 13', '"version": 14');
  const { client, events } = observed({ server: "http://127.0.0.1:9", bundled: withVersion(7), storage: { read: async () => stored, write() {} } });
  assert.strictEqual(await client.ready(1000), true);
  assert.strictEqual(client.current.source, "bundle");
  assert.ok(events.some((e) => e.type === "failed" && e.kind === "bootstrap" && /SHA-256/.test(e.message)), JSON.stringify(events));
});

test("Node's file storage survives being killed mid-write", async () => {
  const folder = temporaryFolder("kill");
  const file = path.join(folder, "routes.cache");
  const writer = `
    const { fileStorage } = require(${JSON.stringify(path.join(dist, "node.js"))});
    const storage = fileStorage(${JSON.stringify(file)});
    (async () => { for (let i = 0; ; i++) { await storage.write(String(i % 10).repeat(200000 + (i % 7) * 50000)); if (i === 0) process.stdout.write("written\\n"); } })();`;
  for (let round = 0; round < 8; round++) {
    // The kill lands a while after the first complete write, however long Node took to start
    // on a loaded machine, so every round has a file to keep and writes in flight to cut.
    const child = spawn(process.execPath, ["-e", writer], { stdio: ["ignore", "pipe", "ignore"] });
    await new Promise((resolve, reject) => { child.stdout.once("data", resolve); child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before its first write`))); });
    await delay(20 + round * 37);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    const value = await fileStorage(file).read();
    if (value === null) continue;
    assert.match(value, /^(\d)\1*$/, `round ${round}: a mixture of writes`);
    assert.strictEqual((value.length - 200000) % 50000, 0, `round ${round}: cut short at ${value.length}`);
  }
  assert.ok(fs.existsSync(file));
  assert.deepStrictEqual(fs.readdirSync(folder).filter((f) => f.endsWith(".tmp")), [], "stale temporaries removed on read");
});

test("Retry-After, backoff and the polling interval follow the contract's arithmetic", () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  assert.strictEqual(retryAfterSeconds("120", now), 120);
  assert.strictEqual(retryAfterSeconds("9999999", now), 86400);
  assert.strictEqual(retryAfterSeconds("Fri, 27 Nov 2026 12:02:00 GMT", now), 120);
  assert.strictEqual(retryAfterSeconds("Friday, 27-Nov-26 12:01:00 GMT", now), 60);
  assert.strictEqual(retryAfterSeconds("Fri Nov 27 12:00:30 2026", now), 30);
  assert.strictEqual(retryAfterSeconds("Thu, 26 Nov 2026 12:00:00 GMT", now), 0);
  assert.strictEqual(retryAfterSeconds("soon", now), undefined);
  const policy = { wait: 50, minimumInterval: 60000, initialBackoff: 1000, maximumBackoff: 300000, requestTimeout: 30000 };
  for (let failures = 1; failures <= 40; failures++) {
    const wait = backoff(policy, failures);
    assert.ok(wait >= 0 && wait <= Math.min(1000 * 2 ** (failures - 1), 300000));
  }
  const large = Array.from({ length: 200 }, () => backoff(policy, 30));
  assert.ok(Math.max(...large) > 150000 && Math.min(...large) < 150000, "full jitter spreads the waits");
  assert.ok(intervalFor(policy, "public, max-age=5") >= 60000, "max-age below the floor");
  const interval = intervalFor(policy, "public, max-age=600");
  assert.ok(interval >= 600000 && interval <= 660000);
});

/** What the client stores for a manifest. */
function storedText(text) {
  const compiled = compileManifest(text);
  const { sha256Hex } = require(path.join(dist, "index.js"));
  const bytes = new TextEncoder().encode(text);
  return `switchboard-client-cache 1 ${sha256Hex(bytes)} ${bytes.length} ${compiled.etag}\n${text}`;
}

test("refresh() right after start() keeps the client following: a manifest published 0.3 s later arrives within 2 s", async (t) => {
  const server = await startServer(withVersion(7));
  t.after(() => server.stop());
  const client = createClient({ server: server.url, bundled: withVersion(7), policy: { ...fast, wait: 30 } });
  client.start();
  t.after(() => client.stop());
  // Pull-to-refresh at launch, while the first held poll is out.
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1));
  await client.refresh();
  // Held again at once, not after a minute of max-age.
  assert.ok(await eventually(async () => (await server.heldPolls()) === 1, 2000), "no held poll after the refresh");
  await delay(300);
  const published = Date.now();
  await server.replace(withVersion(16));
  assert.ok(await eventually(() => client.current.version === 16, 2000), "the manifest did not arrive within 2 s");
  assert.ok(Date.now() - published < 2000);
});

test("a late subscriber hears the manifest in use; resume() after stop() does nothing, as Swift's; another realm's promise is read", async () => {
  const client = createClient({ server: "http://127.0.0.1:9", bundled: withVersion(7), policy: fast });
  const events = [];
  client.subscribe((event) => events.push(event));
  assert.strictEqual(events.length, 1);
  assert.strictEqual(events[0].type, "adopted");
  assert.strictEqual(events[0].version, 7);
  assert.strictEqual(events[0].source, "bundle");
  assert.match(events[0].etag, /^"sha256-[0-9a-f]{64}"$/);
  client.resume();
  assert.strictEqual(client.mode, "idle");
  client.start();
  await client.pause();
  assert.strictEqual(client.mode, "paused");
  client.resume();
  assert.strictEqual(client.mode, "running");
  await client.stop();
  client.resume();
  assert.strictEqual(client.mode, "idle");
  // A storage whose promise comes from another realm (a test runner's sandbox, a polyfill).
  const vm = require("node:vm");
  const stored = storedText(withVersion(21));
  const foreign = vm.runInNewContext("(text) => ({ read: () => Promise.resolve(text), write() {} })")(stored);
  const fromAnotherRealm = createClient({ server: "http://127.0.0.1:9", storage: foreign });
  assert.strictEqual(await fromAnotherRealm.ready(1000), true);
  assert.strictEqual(fromAnotherRealm.current.version, 21);
  assert.strictEqual(fromAnotherRealm.current.source, "cache");
});

test("a stored entry of format 2 is checked by its length and checksum: a changed character is refused", async () => {
  const text = withVersion(22);
  const { storedEntry } = require(path.join(dist, "storage", "storage.js"));
  const entry = storedEntry(text, compileManifest(text).etag);
  assert.match(entry, /^switchboard-client-cache 2 [0-9a-f]{8} \d+ "sha256-/);
  const good = createClient({ server: "http://127.0.0.1:9", storage: { read: () => entry, write() {} } });
  assert.strictEqual(good.current.version, 22);
  const damaged = entry.replace('"version": 22', '"version": 23');
  const warnings = [];
  const client = createClient({ server: "http://127.0.0.1:9", bundled: withVersion(7), storage: { read: () => damaged, write() {} },
    logger: { warn: (message) => warnings.push(message) } });
  assert.strictEqual(client.current.source, "bundle");
  assert.ok(warnings.some((w) => /bootstrap: the stored manifest is damaged: the manifest's checksum/.test(w)), JSON.stringify(warnings));
});

test("the client's context gates resolve(url); a context given to resolve replaces it; an unreadable appVersion is refused when the client is made, never in resolve", async () => {
  const gated = JSON.stringify({ version: 1, hosts: ["artsy.net"], routes: [
    { name: "viewing-room", pattern: "/viewing-room/:id", destination: "ViewingRoom", since: "7.2.0" }] });
  const warnings = [];
  const client = createClient({ server: "http://127.0.0.1:9", bundled: gated, context: { platform: "ios", appVersion: "7.1.0" },
    logger: { warn: (m) => warnings.push(m) } });
  assert.ok(await client.ready(2000));
  assert.strictEqual(client.resolve("https://artsy.net/viewing-room/x").status, "fallback");
  assert.strictEqual(client.resolve("https://artsy.net/viewing-room/x", { appVersion: "7.2.0" }).status, "matched");
  // Not a version: the client's own stands, and resolve answers.
  const answered = client.resolve("https://artsy.net/viewing-room/x", { appVersion: "seven" });
  assert.strictEqual(answered.status, "fallback");
  assert.ok(warnings.some((w) => w.includes('"seven"')), JSON.stringify(warnings));
  assert.throws(() => createClient({ server: "http://127.0.0.1:9", bundled: gated, context: { appVersion: "7.x" } }),
    (e) => e.name === "ContextError" && /7\.x/.test(e.message));
  await client.stop();
});

test("followAppState: the background pauses the client, active resumes it, inactive changes nothing; its return stops following", async () => {
  const { followAppState } = require(path.join(dist, "index.js"));
  const listeners = new Set();
  const AppState = {
    addEventListener(type, listener) {
      assert.strictEqual(type, "change");
      listeners.add(listener);
      return { remove: () => listeners.delete(listener) };
    },
  };
  const emit = (state) => { for (const listener of listeners) listener(state); };
  const client = createClient({ server: "http://127.0.0.1:9", bundled: withVersion(7), policy: fast });
  const stop = followAppState(client, AppState);
  emit("background");
  assert.strictEqual(client.mode, "idle", "a client not started stays so");
  client.start();
  emit("inactive");
  assert.strictEqual(client.mode, "running");
  emit("background");
  assert.strictEqual(client.mode, "paused");
  emit("active");
  assert.strictEqual(client.mode, "running");
  stop();
  assert.strictEqual(listeners.size, 0);
  emit("background");
  assert.strictEqual(client.mode, "running");
  await client.stop();
});
