// Shared by the tests: the switchboard CLI (built by `swift build`), a real server on an
// ephemeral port with its manifest in a folder of its own, and a front before it that
// forwards to it until told to answer with a fault.
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");
const crypto = require("node:crypto");

const packageRoot = path.resolve(__dirname, "..");
const repositoryRoot = path.resolve(packageRoot, "..", "..");
const dist = path.join(packageRoot, "dist");

/** The switchboard binary: SWITCHBOARD_BIN, else the debug build. Fails clearly when missing. */
function switchboardBinary() {
  const binary = process.env.SWITCHBOARD_BIN || path.join(repositoryRoot, ".build", "debug", "switchboard");
  if (!fs.existsSync(binary)) {
    throw new Error(`${binary} is missing: build it first (swift build), or set SWITCHBOARD_BIN`);
  }
  return binary;
}

function switchboard(args, input) {
  return execFileSync(switchboardBinary(), args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, input });
}

function temporaryFolder(name) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-ts-${name}-`));
}

function sha256(bytes) {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

/** `switchboard serve` on an ephemeral port, its manifest in a folder of its own (watched). */
async function startServer(manifestText) {
  const folder = temporaryFolder("server");
  const manifest = path.join(folder, "routes.json");
  fs.writeFileSync(manifest, manifestText);
  const child = spawn(switchboardBinary(), ["serve", "--config", manifest, "--port", "0", "--threads", "2"], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${log}`)), 30000);
    const read = (chunk) => {
      log += chunk;
      const m = /serving on [^:]+:(\d+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    folder,
    /** Replaces the manifest (an atomic rename) and waits until the server serves it. */
    async replace(text) {
      const before = await etagOf(url);
      const temporary = manifest + ".new";
      fs.writeFileSync(temporary, text);
      fs.renameSync(temporary, manifest);
      for (let i = 0; i < 200; i++) {
        if ((await etagOf(url)) !== before) return;
        await delay(25);
      }
      throw new Error("the server did not reload");
    },
    async heldPolls() {
      const text = await (await fetch(url + "/metrics")).text();
      return Number(/^switchboard_held_polls (\d+)$/m.exec(text)[1]);
    },
    async stop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
    },
  };
}

async function etagOf(url) {
  const response = await fetch(url + "/v1/manifest", { method: "HEAD" });
  return response.headers.get("etag");
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A front on its own port: forwards every request to `target` while `fault` is null; else
 * answers /v1/manifest with the fault: {status, retryAfter, after (ms before it answers)}, "truncated", "altered",
 * "invalidManifest", "html"; "down" resets every connection; "dropsPrefer" forwards
 * without `Prefer` and answers without `Preference-Applied`, as a proxy that strips them.
 */
async function startFront(target) {
  const front = { fault: null, requests: 0, faults: 0 };
  const server = http.createServer((request, response) => {
    front.requests++;
    const fault = front.fault;
    if (fault === "down") return request.socket.destroy();
    if (fault === null || fault === "dropsPrefer" || !request.url.startsWith("/v1/manifest")) {
      // "dropsPrefer": a proxy that strips what it does not know, both ways.
      const headers = { ...request.headers };
      if (fault === "dropsPrefer") delete headers.prefer;
      const upstream = http.request(target + request.url, { method: request.method, headers }, (answer) => {
        const answered = { ...answer.headers };
        if (fault === "dropsPrefer") delete answered["preference-applied"];
        response.writeHead(answer.statusCode, answered);
        answer.pipe(response);
      });
      upstream.on("error", () => response.destroy());
      response.on("close", () => upstream.destroy());
      request.pipe(upstream);
      return;
    }
    front.faults++;
    fetch(target + "/v1/manifest").then(async (answer) => {
      const body = Buffer.from(await answer.arrayBuffer());
      const etag = answer.headers.get("etag");
      if (typeof fault === "object") {
        const headers = { "Content-Type": "application/problem+json" };
        if (fault.retryAfter !== undefined) headers["Retry-After"] = fault.retryAfter;
        // `after` ms: a proxy whose timeout ends a held poll before the server answers.
        setTimeout(() => {
          response.writeHead(fault.status, headers);
          response.end(JSON.stringify({ title: "unavailable", status: fault.status }));
        }, fault.after ?? 0);
      } else if (fault === "truncated") {
        response.writeHead(200, { "Content-Type": "application/json", ETag: etag, "Content-Length": body.length });
        response.write(body.subarray(0, body.length >> 1));
        setTimeout(() => response.destroy(), 20);
      } else if (fault === "altered") {
        const altered = Buffer.from(body.toString("utf8").replace('"version":', '"version":1'));
        response.writeHead(200, { "Content-Type": "application/json", ETag: etag });
        response.end(altered);
      } else if (fault === "invalidManifest") {
        const invalid = Buffer.from('{"version":0,"routes":[]}');
        response.writeHead(200, { "Content-Type": "application/json", ETag: `"sha256-${sha256(invalid)}"` });
        response.end(invalid);
      } else if (fault === "html") {
        response.writeHead(200, { "Content-Type": "text/html" });
        response.end("<html><body>Sign in to the captive portal</body></html>");
      }
    }).catch(() => response.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  front.url = `http://127.0.0.1:${server.address().port}`;
  front.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); });
  return front;
}

/** Waits until `predicate()` holds, up to `ms`. */
async function eventually(predicate, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await predicate()) return true;
    await delay(20);
  }
  return false;
}

module.exports = { dist, repositoryRoot, packageRoot, switchboard, switchboardBinary, temporaryFolder, startServer, startFront, eventually, delay, sha256 };
