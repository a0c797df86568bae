// `node dist/conformance.js FILE...`: resolves every case of each conformance vectors
// document (`conformance/vectors`, `switchboard export conformance`) and compares the
// bytes of the result JSON with the case's `expect`. Prints the first disagreements, then
// `N passed, M failed`; exits 1 on any disagreement or unreadable file.

import { readFileSync } from "fs";
import { Disagreement, runVectors } from "./vectors.js";

export { rawItems, rawMembers, runVectors } from "./vectors.js";

function main(files: string[]): number {
  if (files.length === 0) {
    process.stderr.write("usage: node conformance.js VECTORS.json...\n");
    return 2;
  }
  let passed = 0, failedCount = 0, shown = 0, unreadable = 0;
  for (const file of files) {
    let outcome: { passed: number; failed: Disagreement[] };
    try {
      outcome = runVectors(file, readFileSync(file, "utf8"));
    } catch (e) {
      process.stderr.write(`${file}: ${(e as Error).message}\n`);
      unreadable++;
      continue;
    }
    passed += outcome.passed;
    failedCount += outcome.failed.length;
    for (const d of outcome.failed) {
      if (shown++ >= 10) break;
      process.stdout.write(`${d.file}: ${d.url} ${JSON.stringify(d.context)}\n  expected ${d.expected}\n  got      ${d.got}\n`);
    }
  }
  process.stdout.write(`${passed} passed, ${failedCount} failed\n`);
  return failedCount > 0 || unreadable > 0 ? 1 : 0;
}

declare const require: { main: unknown };
declare const module: unknown;
if (require.main === module) process.exitCode = main(process.argv.slice(2));
