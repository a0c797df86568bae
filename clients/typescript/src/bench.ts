// `node dist/bench.js [--quick]`: the engine's speed beside the Swift engine's on the same
// tables and URLs. It writes the 10,000-route table switchboard-bench measures, exports
// conformance vectors for it and for Config/routes.json with the CLI, runs
// `switchboard-bench --vectors` on them first, then times this engine on the same cases:
// ns per resolve (resolve and JSON.stringify, as the Swift figure is resolve and result
// JSON), compile times, and how both grow with routes and URL length; and an app's start:
// createClient and a first resolve, bundled and from a synchronous storage (the same is
// timed on QuickJS by test/quickjs/run.py).

import { execFileSync } from "child_process";
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "fs";
import { join } from "path";
import { rawItems, rawMembers } from "./vectors.js";
import { CompiledManifest, ResolveContext } from "./engine/compiled-manifest.js";
import { storedEntry } from "./storage/storage.js";
import { createClient } from "./updater/client.js";

declare const __dirname: string;

const quick = process.argv.includes("--quick");
const root = join(__dirname, "..", "..", "..");

function nowNs(): number {
  return Number(process.hrtime.bigint());
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

function binary(name: string): string {
  const env = process.env[name === "switchboard" ? "SWITCHBOARD_BIN" : "SWITCHBOARD_BENCH_BIN"];
  for (const candidate of [env, join(root, ".build", "release", name), join(root, ".build", "debug", name)]) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not built: swift build -c release --experimental-lto-mode=full --product ${name}`);
}

function run(file: string, args: string[]): string {
  return execFileSync(file, args, { encoding: "utf8", maxBuffer: 1 << 30 });
}

/** Compiles `text` `times` times; the median in ms. */
function compileTime(text: string, times: number): number {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = nowNs();
    new CompiledManifest(text);
    ms.push((nowNs() - start) / 1e6);
  }
  return median(ms);
}

function main(): void {
  const folder = join(root, ".build", "typescript-bench");
  mkdirSync(folder, { recursive: true });
  const table = join(folder, "routes-10000.json");
  const bench = binary("switchboard-bench"), cli = binary("switchboard");
  run(bench, ["--write-table", "10000", table]);
  run(bench, ["--write-table", "1000", join(folder, "routes-1000.json")]);
  // The first compile in this process, before the JIT has seen the engine: what an app's start pays.
  const coldStart = nowNs();
  new CompiledManifest(readFileSync(table, "utf8"));
  const cold = (nowNs() - coldStart) / 1e6;
  const vectors: [string, string][] = [["Config/routes.json", join(root, "Config", "routes.json")], ["10,000 routes", table]];
  const files = vectors.map(([name, manifest], i) => {
    const out = join(folder, `vectors-${i}.json`);
    writeFileSync(out, run(cli, ["export", "conformance", "--config", manifest]));
    process.stdout.write(`exported the vectors of ${name}\n`);
    return out;
  });
  process.stdout.write("Swift (switchboard-bench --vectors, run just before):\n");
  const swift = run(bench, ["--vectors", ...files, ...(quick ? ["--quick"] : [])]);
  process.stdout.write(swift.replace(/^/gm, "  "));
  const swiftNs = (swift.match(/: \d+ ns\/resolve/g) ?? []).map((m) => Number(m.slice(2, -11)));

  process.stdout.write("TypeScript (this engine, on the same cases):\n");
  files.forEach((file, i) => {
    const document = rawMembers(readFileSync(file, "utf8"));
    const manifest = document.get("manifest") ?? "";
    const compiled = new CompiledManifest(manifest);
    const cases = rawItems(document.get("cases") ?? "[]").map((item) => {
      const m = rawMembers(item);
      return [JSON.parse(m.get("url") ?? '""'), JSON.parse(m.get("context") ?? "{}")] as [string, ResolveContext];
    });
    let sink = 0;
    // Rounds of resolve alone (the result object an app reads) and of resolve with
    // JSON.stringify (the result JSON, as the Swift figure is), taking turns.
    for (let warm = 0; warm < 3; warm++) for (const [url, context] of cases) sink += JSON.stringify(compiled.resolve(url, context)).length;
    const alone: number[] = [], serialized: number[] = [];
    for (let r = 0; r < (quick ? 5 : 21); r++) {
      let start = nowNs();
      for (const [url, context] of cases) sink += compiled.resolve(url, context).status.length;
      alone.push((nowNs() - start) / cases.length);
      start = nowNs();
      for (const [url, context] of cases) sink += JSON.stringify(compiled.resolve(url, context)).length;
      serialized.push((nowNs() - start) / cases.length);
    }
    const ratio = (ns: number) => (swiftNs[i] ? ` (${(ns / swiftNs[i]).toFixed(2)}x)` : "");
    const a = median(alone), b = median(serialized);
    process.stdout.write(`  ${vectors[i][0]}: ${compiled.manifest.routes.length} routes, ${cases.length} cases: resolve ${a.toFixed(0)} ns${ratio(a)}, `
      + `resolve + JSON.stringify ${b.toFixed(0)} ns${ratio(b)} (medians of ${alone.length} rounds; Swift: ${swiftNs[i]} ns with its result JSON), `
      + `compile ${compileTime(manifest, 5).toFixed(1)} ms${sink === 42 ? " " : ""}\n`);
  });

  const big = readFileSync(table, "utf8"), small = readFileSync(join(folder, "routes-1000.json"), "utf8");
  const compile10k = compileTime(big, quick ? 3 : 7), compile1k = compileTime(small, quick ? 3 : 7);
  process.stdout.write(`compile of the 10,000-route table as written: ${compile10k.toFixed(1)} ms warm (median; goal: under 200 ms), ${cold.toFixed(1)} ms the first time in this process; 1,000 routes: ${compile1k.toFixed(1)} ms (${(compile10k / compile1k).toFixed(1)}x for 10x the routes)\n`);

  // URL length: a wildcard route and a regex param, each on paths 10 and 100 times longer.
  const compiled = new CompiledManifest(big);
  const lengths = [80, 800, 8000];
  const perLength = lengths.map((n) => {
    const url = "/section1/help/" + "ab/".repeat(Math.floor((n - 15) / 3));
    const times: number[] = [];
    for (let r = 0; r < 200; r++) {
      const start = nowNs();
      compiled.resolve(url);
      times.push(nowNs() - start);
    }
    return median(times);
  });
  process.stdout.write(`resolve by URL length (${lengths.join(", ")} bytes): ${perLength.map((t) => (t / 1000).toFixed(1) + " µs").join(", ")}\n`);

  // An app's start: createClient, then a first resolve (warm: the JIT has seen the engine).
  for (const [label, text] of [["1,000 routes", small], ["10,000 routes", big]] as [string, string][]) {
    const entry = storedEntry(text, new CompiledManifest(text).etag);
    const starts = (storage: boolean) => {
      const ms: number[] = [];
      for (let r = 0; r < (quick ? 3 : 9); r++) {
        const start = nowNs();
        const client = createClient(storage ? { server: "http://127.0.0.1:9", storage: { read: () => entry, write() {} } }
          : { server: "http://127.0.0.1:9", bundled: text });
        client.resolve("/r1/x");
        ms.push((nowNs() - start) / 1e6);
      }
      return median(ms);
    };
    process.stdout.write(`start (createClient + a first resolve), ${label}: bundled ${starts(false).toFixed(1)} ms, from a synchronous storage ${starts(true).toFixed(1)} ms\n`);
  }
}

main();
