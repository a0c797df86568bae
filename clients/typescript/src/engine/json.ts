// JSON values as the manifest holds them, and the canonical form (compact, keys in UTF-8
// byte order at every level) whose SHA-256 is the manifest's ETag.

import { jsonString, jsonText } from "./json-text.js";
import type { JSONObject, JSONValue } from "./json-text.js";
import { utf8Compare } from "./utf8.js";

export type { JSONObject, JSONValue } from "./json-text.js";

export function isObject(value: unknown): value is JSONObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A plain object (with fast properties, which JSON.stringify writes quickest); its members
 * are set with ``setMember`` so that any key, `__proto__` included, is an own member.
 */
export function emptyObject(): JSONObject {
  return {};
}

/** Sets `key` as an own member whatever it is called. */
export function setMember(object: JSONObject, key: string, value: JSONValue): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Keys of an object in UTF-8 byte order. */
export function sortedKeys(object: JSONObject): string[] {
  return Object.keys(object).sort(utf8Compare);
}

/** `value` with every object's members in key order, as results and the canonical manifest show them. */
export function sortingKeys(value: JSONValue): JSONValue {
  if (Array.isArray(value)) return value.map(sortingKeys);
  if (!isObject(value)) return value;
  const out = emptyObject();
  for (const key of sortedKeys(value)) setMember(out, key, sortingKeys(value[key]));
  return out;
}

/** Compact JSON with keys in byte order at every level. */
export function canonicalJSON(value: JSONValue): string {
  if (Array.isArray(value)) return "[" + value.map(canonicalJSON).join(",") + "]";
  if (isObject(value)) {
    return "{" + sortedKeys(value).map((k) => jsonString(k) + ":" + canonicalJSON(value[k])).join(",") + "}";
  }
  return jsonText(value);
}

/** "a string", "an object", ... for messages. */
export function kindOf(value: JSONValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number") return "a number";
  if (typeof value === "string") return "a string";
  return Array.isArray(value) ? "an array" : "an object";
}

/** A short rendering of a value for messages. */
export function show(value: JSONValue): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? text.slice(0, 40) + "…" : text;
}
