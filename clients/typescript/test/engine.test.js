// The engine against the server's: the committed conformance vectors and refusals, linear
// time on a hostile regex, typed errors, and no platform API the engine may not use. No
// Swift build is needed: only the updater's tests (client.test.js) run a real server.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { dist, repositoryRoot, packageRoot, temporaryFolder } = require("./helpers");
const { compileManifest, ManifestError, ContextError, sha256Hex } = require(path.join(dist, "index.js"));
const { runVectors } = require(path.join(dist, "conformance.js"));
const { wrongRefusals } = require("./manifest-errors");

// The committed conformance folder (conformance/README.md): what the Swift engine answers,
// exported by its tests. Read as files, so these tests need no Swift build.
const conformance = path.join(repositoryRoot, "conformance");
const vectorFiles = fs.readdirSync(path.join(conformance, "vectors")).filter((f) => f.endsWith(".json")).sort();

test("the committed folder holds the bundled table, the fixtures, the edge cases and random tables", () => {
  for (const name of ["routes.json", "conformance-routes.json", "eigen-routes.json", "xss-manifest.json", "engine-edges.json", "random-1.json"]) {
    assert.ok(vectorFiles.includes(name), `${name} is missing from conformance/vectors`);
  }
});

for (const file of vectorFiles) {
  test(`the vectors of ${file} resolve byte for byte as the server's`, () => {
    const { passed, failed } = runVectors(file, fs.readFileSync(path.join(conformance, "vectors", file), "utf8"));
    assert.deepStrictEqual(failed.slice(0, 3), []);
    assert.ok(passed > 50, `${passed} cases`);
  });
}

test("every manifest of manifest-errors.json is refused with exactly its errors", () => {
  const document = JSON.parse(fs.readFileSync(path.join(conformance, "manifest-errors.json"), "utf8"));
  assert.strictEqual(document.format, "switchboard-manifest-errors");
  assert.ok(document.cases.length > 40);
  assert.deepStrictEqual(wrongRefusals(document, compileManifest), []);
  assert.throws(() => compileManifest(document.cases[0].manifest), (e) => e instanceof ManifestError);
});

test("the conformance runner reports disagreements, unreadable files and its totals, with its exit code", () => {
  const folder = temporaryFolder("vectors");
  const good = path.join(conformance, "vectors", "conformance-routes.json");
  const run = (files) => {
    try {
      return { status: 0, out: execFileSync(process.execPath, [path.join(dist, "conformance.js"), ...files], { encoding: "utf8", stdio: "pipe" }) };
    } catch (e) {
      return { status: e.status, out: e.stdout + e.stderr };
    }
  };
  const ok = run([good]);
  assert.strictEqual(ok.status, 0, ok.out);
  assert.match(ok.out, /^\d+ passed, 0 failed\n$/);
  // One expected destination changed: that case, and only it, disagrees.
  const bad = path.join(folder, "bad.json");
  const text = fs.readFileSync(good, "utf8");
  const cases = text.indexOf('"cases":[');
  fs.writeFileSync(bad, text.slice(0, cases) + text.slice(cases).replace('"destination":"Search"', '"destination":"Elsewhere"'));
  const failing = run([bad]);
  assert.strictEqual(failing.status, 1);
  assert.match(failing.out, /expected .*"destination":"Elsewhere"/);
  assert.match(failing.out, /\n\d+ passed, 1 failed\n$/);
  const missing = run([path.join(folder, "nothing.json")]);
  assert.strictEqual(missing.status, 1);
  assert.match(missing.out, /nothing\.json: /);
});

test("a regex param stays linear: [a-z]*[a-z]*[a-z]*x on long hostile segments", () => {
  const compiled = compileManifest(fs.readFileSync(path.join(packageRoot, "test/fixtures/engine-edges.json"), "utf8"));
  // RegExp backtracks cubically on these: 4 times the letters would take 64 times as long.
  // Linear, it takes about 4 times; the fastest of 5 runs each keeps a busy machine's
  // pauses out of the ratio. (1,000 letters is within the 1,024 a value may have.)
  const fastest = (length) => {
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      const started = process.hrtime.bigint();
      const result = compiled.resolve("/slow/" + "a".repeat(length));
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
      assert.strictEqual(result.status, "fallback");
    }
    return best;
  };
  const short = fastest(1000), long = fastest(4000);
  assert.ok(long < Math.max(short, 0.05) * 16, `1,000 letters ${short} ms, 4,000 letters ${long} ms`);
  assert.ok(long < 2000, `4,000 letters took ${long} ms`);
  assert.strictEqual(compiled.resolve("/slow/" + "a".repeat(999) + "x").status, "matched");
});

test("a manifest the engine cannot use is refused with every problem, each with its pointer", () => {
  const text = JSON.stringify({ version: 0, hosts: ["exa mple.com"], routes: [{ name: "a", pattern: "no-slash", destination: "A" },
    { name: "b", pattern: "/b/:id", destination: "B", params: { id: { type: "regex", pattern: "(a+)+" } } }] });
  assert.throws(() => compileManifest(text), (error) => {
    assert.ok(error instanceof ManifestError);
    const codes = error.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.pointer} ${d.code}`);
    assert.deepStrictEqual(codes, ["/version invalid-value", "/hosts/0 invalid-host", "/routes/0/pattern invalid-pattern", "/routes/1/params/id/pattern unsafe-regex"]);
    assert.match(error.message, /\/routes\/0\/pattern: "no-slash": pattern must start with '\/'/);
    return true;
  });
  assert.throws(() => compileManifest("{"), (e) => e instanceof ManifestError && e.diagnostics[0].code === "invalid-json");
});

// Manifests built to make the checks blow up, as the server's ValidationBoundsTests: each
// checked in linear work, reported once per pattern, listed up to the cap.
const refusal = (routes) => {
  try {
    compileManifest(JSON.stringify({ version: 1, routes }));
  } catch (e) {
    if (e instanceof ManifestError) return e.diagnostics;
    throw e;
  }
  return [];
};
const eightGroups = "/p" + Array.from({ length: 8 }, (_, i) => `(/:v${i})`).join("");

test("routes of one pattern with 8 optional groups are each reported once, their pairs counted", () => {
  const problems = refusal(Array.from({ length: 10 }, (_, k) => ({ name: `r${k}`, pattern: eightGroups, destination: "S" })));
  assert.deepStrictEqual(problems.map((d) => `${d.pointer} ${d.code}`), Array.from({ length: 9 }, (_, k) => `/routes/${k + 1}/pattern duplicate`));
  problems.forEach((d, i) => assert.ok(d.message.includes(`(${(i + 1) * 12870 - 1} more pairs of expansions conflict the same way)`), d.message));
});

test("a problem in every route is listed up to the cap, with how many more", () => {
  const problems = refusal(Array.from({ length: 1500 }, (_, k) => ({ name: `r${k}`, pattern: "/x/:a", destination: "S" })));
  assert.strictEqual(problems.length, 1001);
  const more = problems[1000];
  assert.deepStrictEqual([more.code, more.severity, more.message], ["more-problems", "error", "499 more problems not listed: at most 1000 are"]);
});

test("near-duplicate regexes are each ambiguous once; a shape past the budget loads with a warning", () => {
  const regexes = refusal(Array.from({ length: 300 }, (_, k) => ({ name: `r${k}`, pattern: "/:a", destination: "S", params: { a: { type: "regex", pattern: `a{${k + 1}}` } } })));
  assert.strictEqual(regexes.length, 299);
  assert.ok(regexes.every((d) => d.code === "ambiguous"));
  const enums = compileManifest(JSON.stringify({ version: 1, routes: Array.from({ length: 5000 }, (_, k) =>
    ({ name: `r${k}`, pattern: "/:a", destination: "S", params: { a: { type: "enum", values: [`v${k}`] } } })) }));
  assert.deepStrictEqual(enums.warnings.map((d) => d.code), ["checks-incomplete"]);
  assert.strictEqual(enums.resolve("/v4321").route.name, "r4321");
});

test("a chain of more distinct redirects than the bound is a warning, followed without recursion", () => {
  const routes = Array.from({ length: 20000 }, (_, k) => ({ name: `r${k}`, pattern: `/r${k}/:a`, redirect: `/r${k + 1}/:a` }));
  routes.push({ name: "end", pattern: "/r20000/:a", destination: "S" });
  const loaded = compileManifest(JSON.stringify({ version: 1, routes }));
  assert.ok(loaded.warnings.some((d) => d.code === "redirect-chain" && d.pointer === "/routes/0/redirect"));
  assert.ok(loaded.warnings.every((d) => d.code === "redirect-chain"));
  assert.strictEqual(loaded.resolve("/r19995/x").route.name, "end");
});

test("an appVersion that is not a semantic version is a ContextError, as the server's 400", () => {
  const compiled = compileManifest(fs.readFileSync(path.join(repositoryRoot, "Config/routes.json"), "utf8"));
  assert.throws(() => compiled.resolve("/", { appVersion: "seven" }), (e) => e instanceof ContextError && /"seven"/.test(e.message));
});

test("the engine, the updater and the storage format use no node: module, Buffer, platform URL class or TextEncoder", () => {
  // What only Node runs: the `./node` entry, the file storage, the conformance runner, the benchmark.
  const nodeOnly = new Set(["node.ts", "storage/file.ts", "conformance.ts", "bench.ts", "node-globals.d.ts"]);
  const files = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(path.join(packageRoot, "src", folder), { withFileTypes: true })) {
      const name = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name); else files.push(name);
    }
  };
  walk("");
  assert.ok(files.includes("engine/compiled-manifest.ts") && files.includes("updater/client.ts"));
  for (const file of files) {
    if (nodeOnly.has(file)) continue;
    const source = fs.readFileSync(path.join(packageRoot, "src", file), "utf8").replace(/\/\/.*$/gm, "");
    for (const forbidden of [/from "(node:)?(fs|path|crypto|child_process|http|os|url|buffer)"/, /\brequire\(/, /\bBuffer\b/, /\bnew URL\(/,
      /\bURLSearchParams\b/, /\bTextEncoder\b/, /\bTextDecoder\b/, /\bprocess\./]) {
      assert.doesNotMatch(source, forbidden, `${file} uses ${forbidden}`);
    }
  }
});

test("the package's SHA-256 (for Hermes, which has no WebCrypto) agrees with Node's on every length around its blocks", () => {
  const crypto = require("node:crypto");
  for (let length = 0; length < 300; length++) {
    const bytes = crypto.randomBytes(length);
    assert.strictEqual(sha256Hex(new Uint8Array(bytes)), crypto.createHash("sha256").update(bytes).digest("hex"), `${length} bytes`);
  }
  const large = crypto.randomBytes(3 << 20);
  assert.strictEqual(sha256Hex(new Uint8Array(large)), crypto.createHash("sha256").update(large).digest("hex"));
});
