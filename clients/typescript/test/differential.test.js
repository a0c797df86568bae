// The decoder and its table-wide checks against `switchboard check`, on random small
// tables drawn to collide: few literals, overlapping types, optional groups, wildcards,
// priorities, version gates, hosts, and redirects that land, miss, chain and loop. Every
// diagnostic (severity, pointer, code) must be the server's. Needs the switchboard CLI.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { dist, switchboardBinary, temporaryFolder } = require("./helpers");
const { execFileSync } = require("node:child_process");
const { compileManifest } = require(path.join(dist, "index.js"));

/** A seeded table of 2 to 8 routes. */
function randomTable(seed) {
  let state = seed;
  const random = () => { state = (state * 1103515245 + 12345) % 2147483648; return state / 2147483648; };
  const pick = (items) => items[Math.floor(random() * items.length)];
  const words = ["a", "b", "c", "A", "d"];
  const types = [null, { type: "int" }, { type: "slug" }, { type: "uuid" }, { type: "enum", values: ["a", "b"] },
    { type: "enum", values: ["b", "c"] }, { type: "regex", pattern: "[a-c]+" }, { type: "string", required: true }];
  const routes = [];
  const count = 2 + Math.floor(random() * 7);
  for (let i = 0; i < count; i++) {
    let pattern = "";
    const params = {};
    const depth = 1 + Math.floor(random() * 3);
    for (let d = 0; d < depth; d++) {
      const r = random();
      if (r < 0.45) pattern += "/" + pick(words);
      else if (r < 0.75) { pattern += "/:p" + d; const t = pick(types); if (t) params["p" + d] = t; }
      else if (r < 0.9 && d > 0) pattern += "(/" + pick(words) + ")";
      else { pattern += "/*rest"; break; }
    }
    if (random() < 0.15) params.q = pick(types.filter(Boolean));
    const route = { name: random() < 0.05 ? "r0" : "r" + i, pattern };
    if (Object.keys(params).length > 0) route.params = params;
    if (random() < 0.3) route.priority = Math.floor(random() * 2);
    if (random() < 0.1) route.since = pick(["1.0.0", "2.0.0"]);
    if (random() < 0.1) route.hosts = [pick(["x.com", "y.com"])];
    if (random() < 0.3) {
      let target = "";
      const targetDepth = 1 + Math.floor(random() * 3);
      for (let d = 0; d < targetDepth; d++) target += random() < 0.6 ? "/" + pick(words) : random() < 0.5 ? "/:p" + d : "/*rest";
      route.redirect = target;
    } else {
      route.destination = "D" + i;
    }
    routes.push(route);
  }
  return JSON.stringify({ version: 1, hosts: ["x.com", "y.com"], caseSensitive: random() < 0.3, routes }, null, 1);
}

const listed = (diagnostics) => diagnostics.map((d) => `${d.severity} ${d.pointer} ${d.code}`).sort();

test("on 200 random colliding tables, every diagnostic is the one `switchboard check` reports", () => {
  const binary = switchboardBinary();
  const folder = temporaryFolder("differential");
  const codes = new Set();
  for (let seed = 1; seed <= 200; seed++) {
    const text = randomTable(seed);
    const file = path.join(folder, `table-${seed}.json`);
    fs.writeFileSync(file, text);
    let report;
    try {
      report = execFileSync(binary, ["check", "--format", "json", file], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch (e) {
      report = e.stdout; // exit 1: the manifest is refused
    }
    const server = listed(JSON.parse(report).diagnostics);
    let ours;
    try {
      ours = listed(compileManifest(text).warnings);
    } catch (e) {
      ours = listed(e.diagnostics);
    }
    assert.deepStrictEqual(ours, server, `seed ${seed}:\n${text}`);
    for (const line of server) codes.add(line.split(" ")[2]);
  }
  // The tables reach what they are drawn for.
  for (const code of ["duplicate", "ambiguous", "never-wins", "duplicate-name", "redirect-target", "redirect-cycle", "unknown-param"]) {
    assert.ok(codes.has(code), `no table raised ${code}: ${Array.from(codes).join(", ")}`);
  }
});
