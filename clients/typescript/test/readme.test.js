// The TypeScript examples of README.md and docs/clients.md (```ts and ```tsx) type-check
// against the package's declarations, with Debian's tsc (node-typescript) and React's own
// types (node-react). The React Native modules they import are declared here as their
// packages declare the parts the examples use.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { dist, repositoryRoot, temporaryFolder } = require("./helpers");

const stubs = `
declare module "react-native" {
  import type { ReactNode } from "react";
  type AppStateStatus = "active" | "background" | "inactive" | "unknown" | "extension";
  export const AppState: { addEventListener(type: "change", listener: (state: AppStateStatus) => void): { remove(): void } };
  export function Text(props: { children?: ReactNode }): JSX.Element;
}
declare module "@react-native-async-storage/async-storage" {
  const AsyncStorage: { getItem(key: string): Promise<string | null>; setItem(key: string, value: string): Promise<void> };
  export default AsyncStorage;
}
declare module "react-native-mmkv" {
  export class MMKV { constructor(configuration?: { id?: string; path?: string }); getString(key: string): string | undefined; set(key: string, value: boolean | string | number): void; }
}
declare const console: { log(...values: unknown[]): void; warn(...values: unknown[]): void };
`;

function examples(file) {
  const blocks = [];
  let current = null;
  for (const line of fs.readFileSync(path.join(repositoryRoot, file), "utf8").split("\n")) {
    if (current === null && (line === "```ts" || line === "```tsx")) { current = []; current.extension = line.slice(3); }
    else if (current !== null && line === "```") { blocks.push({ text: current.join("\n"), extension: current.extension }); current = null; }
    else if (current !== null) current.push(line);
  }
  return blocks;
}

test("the TypeScript examples of the README and docs/clients.md type-check against the package", () => {
  const folder = temporaryFolder("examples");
  const files = [];
  for (const doc of ["README.md", "docs/clients.md"]) {
    examples(doc).forEach((block, i) => {
      const name = `${path.basename(doc, ".md")}-${i}.${block.extension}`;
      fs.writeFileSync(path.join(folder, name), block.text + "\nexport {};\n");
      files.push(name);
    });
  }
  assert.ok(files.length >= 3, `examples found: ${files}`);
  assert.ok(files.some((f) => f.endsWith(".tsx")), `a React example: ${files}`);
  fs.writeFileSync(path.join(folder, "stubs.d.ts"), stubs);
  // React's types and the two they import, from Debian, as an app's node_modules has them.
  fs.mkdirSync(path.join(folder, "node_modules", "@types"), { recursive: true });
  for (const [module, pkg] of [["@types/react", "node-react"], ["@types/prop-types", "node-prop-types"], ["@types/scheduler", "node-react"], ["csstype", "node-csstype"]]) {
    const installed = path.join("/usr/share/nodejs", module);
    assert.ok(fs.existsSync(installed), `${installed} is missing: apt-get install ${pkg} (bash .ci/install --test)`);
    fs.symlinkSync(installed, path.join(folder, "node_modules", module));
  }
  fs.writeFileSync(path.join(folder, "routes-manifest.ts"), 'const text: string = "{}";\nexport default text;\n');
  fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: "ES2019", module: "commonjs", lib: ["ES2019"], types: ["react"], esModuleInterop: true,
      jsx: "react-jsx", preserveSymlinks: true,
      baseUrl: ".", paths: {
        "switchboard-client": [path.join(dist, "index.d.ts")], "switchboard-client/node": [path.join(dist, "node.d.ts")],
        "switchboard-client/react": [path.join(dist, "react.d.ts")],
        // The package's own declarations, outside this folder, find React's here too.
        "react": ["node_modules/@types/react/index.d.ts"], "react/jsx-runtime": ["node_modules/@types/react/jsx-runtime.d.ts"],
      },
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
