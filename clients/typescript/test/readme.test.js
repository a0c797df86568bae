// The TypeScript examples of README.md and docs/clients.md type-check against the package's
// declarations, with Debian's tsc (node-typescript). The React Native modules they import
// are declared here as their packages declare the parts the examples use.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { dist, repositoryRoot, temporaryFolder } = require("./helpers");

const stubs = `
declare module "react-native" {
  type AppStateStatus = "active" | "background" | "inactive" | "unknown" | "extension";
  export const AppState: { addEventListener(type: "change", listener: (state: AppStateStatus) => void): { remove(): void } };
}
declare module "@react-native-async-storage/async-storage" {
  const AsyncStorage: { getItem(key: string): Promise<string | null>; setItem(key: string, value: string): Promise<void> };
  export default AsyncStorage;
}
declare module "react-native-mmkv" {
  export class MMKV { constructor(configuration?: { id?: string; path?: string }); getString(key: string): string | undefined; set(key: string, value: boolean | string | number): void; }
}
declare module "react" {
  export function useSyncExternalStore<Snapshot>(subscribe: (onStoreChange: () => void) => () => void, getSnapshot: () => Snapshot, getServerSnapshot?: () => Snapshot): Snapshot;
}
declare const console: { log(...values: unknown[]): void; warn(...values: unknown[]): void };
`;

function examples(file) {
  const blocks = [];
  let current = null;
  for (const line of fs.readFileSync(path.join(repositoryRoot, file), "utf8").split("\n")) {
    if (current === null && line === "```ts") current = [];
    else if (current !== null && line === "```") { blocks.push(current.join("\n")); current = null; }
    else if (current !== null) current.push(line);
  }
  return blocks;
}

test("the TypeScript examples of the README and docs/clients.md type-check against the package", () => {
  const folder = temporaryFolder("examples");
  const files = [];
  for (const doc of ["README.md", "docs/clients.md"]) {
    examples(doc).forEach((block, i) => {
      const name = `${path.basename(doc, ".md")}-${i}.ts`;
      fs.writeFileSync(path.join(folder, name), block + "\nexport {};\n");
      files.push(name);
    });
  }
  assert.ok(files.length >= 3, `examples found: ${files}`);
  fs.writeFileSync(path.join(folder, "stubs.d.ts"), stubs);
  fs.writeFileSync(path.join(folder, "routes-manifest.ts"), 'const text: string = "{}";\nexport default text;\n');
  fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: "ES2019", module: "commonjs", lib: ["ES2019"], types: [], esModuleInterop: true,
      baseUrl: ".", paths: { "switchboard-client": [path.join(dist, "index.d.ts")], "switchboard-client/node": [path.join(dist, "node.d.ts")] },
    },
    files: [...files, "stubs.d.ts", "routes-manifest.ts"],
  }));
  try {
    execFileSync("tsc", ["-p", folder], { encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    if (e.code === "ENOENT") assert.fail("tsc is not installed: `bash .ci/install --test` installs it (Debian package node-typescript)");
    assert.fail(`the examples do not type-check:\n${e.stdout}${e.stderr}`);
  }
});
