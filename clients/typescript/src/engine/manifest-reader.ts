// What every part of the decoder shares: the diagnostics it collects, the fields it reads
// with their JSON pointers, and the manifest's limits.

import { JSONObject, JSONValue, kindOf, show } from "./json.js";
import { Diagnostic } from "./manifest.js";

export const PLATFORMS = ["ios", "android", "web"], IDIOMS = ["phone", "tablet"];
export const MAX_ROUTES = 50000, MAX_EXPANSIONS = 300000;

export function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function has(object: JSONObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export function get(object: JSONObject, key: string): JSONValue | undefined {
  return has(object, key) ? object[key] : undefined;
}

/** Collects diagnostics and reads typed fields, reporting what is not of its type. */
export class ManifestReader {
  diagnostics: Diagnostic[] = [];
  hostKeys: string[] = [];

  error(code: string, pointer: string, message: string): void {
    this.diagnostics.push({ severity: "error", code, pointer, message });
  }

  warning(code: string, pointer: string, message: string): void {
    this.diagnostics.push({ severity: "warning", code, pointer, message });
  }

  checkKeys(object: JSONObject, pointer: string, known: string[]): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) this.warning("unknown-field", pointer + "/" + pointerToken(key), `unknown field "${key}" is ignored`);
    }
  }

  string(value: JSONValue | undefined, pointer: string): string | null {
    if (value === undefined) return null;
    if (typeof value !== "string" || value.length === 0) {
      this.error("type-mismatch", pointer, `expected a non-empty string, not ${show(value)}`);
      return null;
    }
    return value;
  }

  bool(value: JSONValue | undefined, pointer: string): boolean | null {
    if (value === undefined) return null;
    if (typeof value !== "boolean") {
      this.error("type-mismatch", pointer, `expected true or false, not ${show(value)}`);
      return null;
    }
    return value;
  }

  stringList(value: JSONValue | undefined, pointer: string, allowSingle = false): string[] | null {
    if (value === undefined) return null;
    if (allowSingle && typeof value === "string") return [value];
    if (!Array.isArray(value)) {
      this.error("type-mismatch", pointer, `expected an array of strings, not ${kindOf(value)}`);
      return null;
    }
    const out: string[] = [];
    value.forEach((item, i) => {
      const s = this.string(item, `${pointer}/${i}`);
      if (s !== null) out.push(s);
    });
    return out;
  }

}
