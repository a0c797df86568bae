// What the client computes of a manifest it is given or fetched, apart from the loop:
// its SHA-256 (the platform's when it has one), the event that announces it, and whether a
// storage's answer is a promise.

import { sha256Hex } from "../engine/sha256.js";
import type { ClientEvent, ManifestInUse } from "./options.js";

/** The SHA-256 of `bytes`: the injected function, else WebCrypto, else the package's own. */
export async function sha256Of(bytes: Uint8Array, injected?: (bytes: Uint8Array) => string | PromiseLike<string>): Promise<string> {
  if (injected) return injected(bytes);
  const subtle = (globalThis as unknown as { crypto?: { subtle?: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } } }).crypto?.subtle;
  if (subtle) {
    const hash = new Uint8Array(await subtle.digest("SHA-256", bytes));
    let hex = "";
    for (let i = 0; i < hash.length; i++) hex += hash[i].toString(16).padStart(2, "0");
    return hex;
  }
  return sha256Hex(bytes);
}

/** The event for a manifest put in use; its ETag read when the listener reads it. */
export function manifestEvent(m: ManifestInUse): ClientEvent {
  const event = { type: "adopted", version: m.version, source: m.source } as ClientEvent & { etag: string };
  Object.defineProperty(event, "etag", { enumerable: true, get: () => m.etag });
  return event;
}

/** Whether `value` is a promise, from this realm or another (a test runner's, a polyfill's). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
