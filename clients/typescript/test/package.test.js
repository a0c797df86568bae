// The package as an app or a backend installs it: what `npm pack` would ship (package.json's
// `files`), in a node_modules of its own, required as CommonJS and imported as an ES module
// under Node, and type-checked by Debian's tsc (4.8) under each module resolution an app
// may use, with React Native's and the DOM's `fetch` passed as they are declared.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { packageRoot, temporaryFolder } = require("./helpers");

const manifest = JSON.stringify({ version: 3, routes: [{ name: "artwork", pattern: "/artwork/:id", destination: "Artwork" }] });

/** The files `files` ships: dist/ but what its negations leave out, and the named files. */
function packedFiles() {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8"));
  const excluded = pkg.files.filter((f) => f.startsWith("!")).map((f) => new RegExp("^" + f.slice(1).replace(/\./g, "\\.").replace(/\*/g, "[^/]*") + "$"));
  const out = ["package.json"];
  const walk = (relative) => {
    const full = path.join(packageRoot, relative);
    if (fs.statSync(full).isDirectory()) {
      for (const entry of fs.readdirSync(full)) walk(path.join(relative, entry));
    } else if (!excluded.some((r) => r.test(relative))) {
      out.push(relative);
    }
  };
  for (const entry of pkg.files.filter((f) => !f.startsWith("!"))) walk(entry);
  return out;
}

/** A project folder with the package installed in its node_modules. */
function project() {
  const folder = temporaryFolder("consumer");
  const installed = path.join(folder, "node_modules", "switchboard-client");
  for (const file of packedFiles()) {
    fs.mkdirSync(path.dirname(path.join(installed, file)), { recursive: true });
    fs.copyFileSync(path.join(packageRoot, file), path.join(installed, file));
  }
  return folder;
}

function tsc(folder, options, files) {
  fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], ...options }, files }));
  try {
    execFileSync("tsc", ["-p", folder], { encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    if (e.code === "ENOENT") assert.fail("tsc is not installed: `bash .ci/install --test` installs it (Debian package node-typescript)");
    assert.fail(`${JSON.stringify(options)}:\n${e.stdout}${e.stderr}`);
  }
}

test("what is packed: the code, its types, the docs and the license; no dev script, no test, no source map of a tool", () => {
  const files = packedFiles();
  for (const needed of ["LICENSE", "README.md", "dist/index.js", "dist/index.d.ts", "dist/node.d.ts", "dist/esm/index.js", "dist/esm/index.d.ts", "dist/esm/package.json",
    "dist/react.js", "dist/esm/react.js", "node/package.json", "react/package.json"]) {
    assert.ok(files.includes(needed), `${needed} is not packed`);
  }
  assert.deepStrictEqual(files.filter((f) => /bench|test\/|build\.js|tsconfig/.test(f)), []);
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8"));
  assert.strictEqual(pkg.sideEffects, false);
  assert.match(fs.readFileSync(path.join(packageRoot, "LICENSE"), "utf8"), /^MIT License/);
});

test("required as CommonJS and imported as an ES module, under Node, the two builds answer alike", () => {
  const folder = project();
  const script = `const { compileManifest, resultJSON } = require("switchboard-client");
const { fileStorage, nodeSha256 } = require("switchboard-client/node");
process.stdout.write(resultJSON(compileManifest(${JSON.stringify(manifest)}).resolve("/artwork/a")) + " " + typeof fileStorage + typeof nodeSha256);`;
  fs.writeFileSync(path.join(folder, "app.cjs"), script);
  fs.writeFileSync(path.join(folder, "app.mjs"), `import { compileManifest, resultJSON } from "switchboard-client";
import { fileStorage, nodeSha256 } from "switchboard-client/node";
process.stdout.write(resultJSON(compileManifest(${JSON.stringify(manifest)}).resolve("/artwork/a")) + " " + typeof fileStorage + typeof nodeSha256);`);
  const cjs = execFileSync(process.execPath, [path.join(folder, "app.cjs")], { cwd: folder, encoding: "utf8" });
  const esm = execFileSync(process.execPath, [path.join(folder, "app.mjs")], { cwd: folder, encoding: "utf8" });
  assert.match(cjs, /^\{"url":"\/artwork\/a","status":"matched",.*"destination":"Artwork".* functionfunction$/);
  assert.strictEqual(esm, cjs);
});

// React Native's global fetch as its types declare it (react-native/types/modules/globals.d.ts):
// no `cache` in its RequestInit, its own AbortSignal, Headers and Response.
const reactNativeGlobals = `
declare class AbortSignal { readonly aborted: boolean; onabort: (event: any) => void; addEventListener(type: "abort", listener: (this: AbortSignal) => any): void; removeEventListener(type: "abort", listener: (this: AbortSignal) => any): void; }
interface Headers { append(name: string, value: string): void; delete(name: string): void; forEach(callback: Function, thisArg?: any): void; get(name: string): string | null; has(name: string): boolean; set(name: string, value: string): void; }
declare type HeadersInit_ = Headers | string[][] | { [key: string]: string };
declare type RequestCredentials_ = "omit" | "same-origin" | "include";
declare type RequestMode_ = "navigate" | "same-origin" | "no-cors" | "cors";
interface RequestInit { body?: string | null; credentials?: RequestCredentials_; headers?: HeadersInit_; integrity?: string; keepalive?: boolean; method?: string; mode?: RequestMode_; referrer?: string; window?: any; signal?: AbortSignal; }
interface Body { readonly bodyUsed: boolean; arrayBuffer(): Promise<ArrayBuffer>; blob(): Promise<unknown>; json(): Promise<any>; text(): Promise<string>; }
interface Response extends Body { readonly headers: Headers; readonly ok: boolean; readonly status: number; readonly statusText: string; readonly type: string; readonly url: string; clone(): Response; }
declare class Request { constructor(input: string | Request, init?: RequestInit); readonly method: string; readonly url: string; }
declare type RequestInfo = Request | string;
declare function fetch(input: RequestInfo, init?: RequestInit): Promise<Response>;
`;

const app = `import { createClient, compileManifest, resultJSON, ResolveResult, Fetch, FetchInit, JSONObject, Style, PresentationJSON } from "switchboard-client";
import { fileStorage } from "switchboard-client/node";
export const client = createClient({ server: "https://routes.example.com", fetch, storage: fileStorage("/tmp/routes.cache") });
export const own: Fetch = (url: string, init: FetchInit) => fetch(url, init);
const result: ResolveResult = compileManifest("{}").resolve("/artwork/a");
if (result.status === "matched") {
  const destination: string = result.destination;
  const params: JSONObject = result.params;
  const style: Style = result.presentation.style;
  const presentation: PresentationJSON = result.presentation;
  console.log(destination, params, style, presentation, result.route.name, resultJSON(result));
}
declare const console: { log(...values: unknown[]): void };
`;

test("types: React Native's fetch and the DOM's are accepted as declared, results narrow by status, ./node has types under every resolution", () => {
  const folder = project();
  fs.writeFileSync(path.join(folder, "react-native-globals.d.ts"), reactNativeGlobals);
  fs.writeFileSync(path.join(folder, "app.ts"), app);
  // React Native's toolchain and a CommonJS backend: moduleResolution node, which reads no `exports`.
  tsc(folder, { module: "commonjs", moduleResolution: "node", target: "ES2019", lib: ["ES2019"] }, ["react-native-globals.d.ts", "app.ts"]);
  // A browser bundle: the DOM's fetch.
  tsc(folder, { module: "ES2020", moduleResolution: "node", target: "ES2019", lib: ["ES2019", "DOM"] }, ["app.ts"]);
  // Node's own resolution, from an ES module: the `exports` conditions and their types.
  fs.writeFileSync(path.join(folder, "app.mts"), app);
  tsc(folder, { module: "node16", moduleResolution: "node16", target: "ES2020", lib: ["ES2020", "DOM"] }, ["app.mts"]);
});

test("switchboard-client/react: its own entry, typed against React's own types (Debian's @types/react), and nothing else of the package requires React", () => {
  for (const file of packedFiles().filter((f) => f.endsWith(".js"))) {
    const text = fs.readFileSync(path.join(packageRoot, file), "utf8");
    const reactless = !/require\("react"\)|from "react"/.test(text);
    assert.strictEqual(reactless, !/(^|\/)react\.js$/.test(file), `${file} ${reactless ? "does not require" : "requires"} React`);
  }
  // React's types and the two they import, from Debian, as an app's node_modules has them.
  const folder = project();
  fs.mkdirSync(path.join(folder, "node_modules", "@types"), { recursive: true });
  for (const [module, pkg] of [["@types/react", "node-react"], ["@types/prop-types", "node-prop-types"], ["@types/scheduler", "node-react"], ["csstype", "node-csstype"]]) {
    const installed = path.join("/usr/share/nodejs", module);
    assert.ok(fs.existsSync(installed), `${installed} is missing: apt-get install ${pkg} (bash .ci/install --test)`);
    fs.symlinkSync(installed, path.join(folder, "node_modules", module));
  }
  fs.writeFileSync(path.join(folder, "screen.ts"), `import { createElement } from "react";
import { createClient, followAppState } from "switchboard-client";
import { SwitchboardProvider, useResolve, useManifest, useLastFailure } from "switchboard-client/react";
declare const AppState: { addEventListener(type: "change", listener: (state: "active" | "background" | "inactive") => void): { remove(): void } };
export const routes = createClient({ server: "https://routes.example.com", context: { platform: "ios", appVersion: "7.2.0" } });
const stopFollowing: () => void = followAppState(routes, AppState);
export function Screen(props: { url: string }) {
  const result = useResolve(props.url);
  const version: number | undefined = useManifest()?.version;
  const failure: string | undefined = useLastFailure()?.kind;
  return createElement("p", null, result?.status === "matched" ? result.destination : "none", version, failure);
}
export const app = createElement(SwitchboardProvider, { client: routes }, createElement(Screen, { url: "/artwork/a" }));
stopFollowing();
`);
  tsc(folder, { module: "commonjs", moduleResolution: "node", target: "ES2019", lib: ["ES2019", "DOM"], types: ["react"], preserveSymlinks: true }, ["screen.ts"]);
  fs.writeFileSync(path.join(folder, "screen.mts"), fs.readFileSync(path.join(folder, "screen.ts"), "utf8"));
  tsc(folder, { module: "node16", moduleResolution: "node16", target: "ES2020", lib: ["ES2020", "DOM"], types: ["react"], preserveSymlinks: true }, ["screen.mts"]);
});
