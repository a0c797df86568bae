// Conformance vectors (`conformance/vectors`, `switchboard export conformance`) read and run
// with no platform API: the Node runner (conformance.ts), the QuickJS one
// (test/quickjs) and the benchmark share it. Each case's result is written by the
// package's own JSON writer and compared with `expect`, byte for byte.

import { CompiledManifest } from "./engine/compiled-manifest.js";
import { JSONObject, JSONValue } from "./engine/json.js";
import { jsonText } from "./engine/json-text.js";

/** The raw text of each member of the JSON object at `text[start]`, by key. */
export function rawMembers(text: string, start = 0): Map<string, string> {
  const members = new Map<string, string>();
  let i = skipSpace(text, start);
  if (text[i] !== "{") throw new Error(`expected an object at byte ${i}`);
  i = skipSpace(text, i + 1);
  if (text[i] === "}") return members;
  for (;;) {
    const keyEnd = skipValue(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ":") throw new Error(`expected ':' at byte ${i}`);
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    members.set(key, text.slice(valueStart, valueEnd));
    i = skipSpace(text, valueEnd);
    if (text[i] === "}") return members;
    if (text[i] !== ",") throw new Error(`expected ',' or '}' at byte ${i}`);
    i = skipSpace(text, i + 1);
  }
}

/** The raw text of each item of the JSON array `text`. */
export function rawItems(text: string): string[] {
  const items: string[] = [];
  let i = skipSpace(text, 0);
  if (text[i] !== "[") throw new Error("expected an array");
  i = skipSpace(text, i + 1);
  if (text[i] === "]") return items;
  for (;;) {
    const end = skipValue(text, i);
    items.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text[i] === "]") return items;
    if (text[i] !== ",") throw new Error(`expected ',' or ']' at byte ${i}`);
    i = skipSpace(text, i + 1);
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  return i;
}

/** The end of the JSON value starting at `i`. */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    for (i++; i < text.length; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === '"') return i + 1;
    }
    throw new Error("unterminated string");
  }
  if (c === "{" || c === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text[i];
      if (d === '"') i = skipValue(text, i) - 1;
      else if (d === "{" || d === "[") depth++;
      else if (d === "}" || d === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new Error("unterminated container");
  }
  while (i < text.length && !",}] \n\r\t".includes(text[i])) i++;
  return i;
}

export interface Disagreement {
  file: string;
  url: string;
  context: JSONObject;
  expected: string;
  got: string;
}

/** Runs one vectors document; the number passed and the disagreements. */
export function runVectors(file: string, text: string): { passed: number; failed: Disagreement[] } {
  const document = rawMembers(text);
  if (JSON.parse(document.get("format") ?? "null") !== "switchboard-conformance") throw new Error("not a switchboard-conformance document");
  const compiled = new CompiledManifest(document.get("manifest") ?? "null");
  const failed: Disagreement[] = [];
  const etag = JSON.parse(document.get("etag") ?? "null") as string;
  if (compiled.etag !== etag) failed.push({ file, url: "(manifest ETag)", context: {}, expected: etag, got: compiled.etag });
  let passed = 0;
  for (const item of rawItems(document.get("cases") ?? "[]")) {
    const members = rawMembers(item);
    const url = JSON.parse(members.get("url") ?? "null") as string;
    const context = JSON.parse(members.get("context") ?? "{}") as JSONObject;
    const expected = members.get("expect") ?? "";
    let got: string;
    try {
      got = jsonText(compiled.resolve(url, context) as unknown as JSONValue);
    } catch (e) {
      got = `(threw ${(e as Error).message})`;
    }
    if (got === expected) passed++;
    else failed.push({ file, url, context, expected, got });
  }
  return { passed, failed };
}
