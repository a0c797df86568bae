// Builds the package (`node build.js`, what `npm run build` and `npm pack` run): CommonJS
// and its types in dist/, the ES module build and its types in dist/esm/, from a clean
// dist/ so that nothing stale is packed. `TSC` names another tsc than the one on the PATH.
"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const tsc = process.env.TSC || "tsc";
const dist = path.join(__dirname, "dist");
fs.rmSync(dist, { recursive: true, force: true });
execFileSync(tsc, ["-p", __dirname], { stdio: "inherit" });
execFileSync(tsc, ["-p", path.join(__dirname, "tsconfig.esm.json")], { stdio: "inherit" });
// Node reads dist/esm's .js files as ES modules by the nearest package.json.
fs.writeFileSync(path.join(dist, "esm", "package.json"), '{"type":"module","sideEffects":false}\n');
