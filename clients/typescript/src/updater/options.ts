// What an app gives the updater and what it hears back: its options, the manifest in
// use, the events and why an update failed.

import type { CompiledManifest, ResolveContext } from "../engine/compiled-manifest.js";
import type { Storage } from "../storage/storage.js";
import type { Timers } from "./timers.js";
import type { UpdatePolicy } from "./policy.js";

/** Where the manifest in use came from: the last good copy kept in `storage` (the cache), the bundled copy, or the server in this run. */
export type ManifestSource = "cache" | "bundle" | "server";

/** The manifest the client resolves with. */
export interface ManifestInUse {
  compiled: CompiledManifest;
  /** The ETag the server sent with it (its own for a bundled copy): the next `If-None-Match`. */
  etag: string;
  source: ManifestSource;
  version: number;
}

/** Why an update failed; the client goes on with the manifest it has and tries again. */
export type FailureKind =
  | "unreachable" // no answer: connection refused or reset, a body cut short
  | "timeout" // no complete answer within the request's timeout
  | "status" // a status other than 200 and 304 (429 and 503 with retryAfter)
  | "contentType" // a 200 that is not application/json
  | "integrity" // a body whose SHA-256 is not the one its ETag names
  | "invalidManifest" // a manifest that does not compile: never used
  | "bootstrap" // the stored copy or the bundled one could not be used
  | "persist"; // the manifest could not be stored (it is used all the same)

/** An update that failed: the manifest in use (if any) stays. */
export interface FailedEvent {
  type: "failed";
  kind: FailureKind;
  message: string;
  status?: number;
  retryAfter?: number;
}

export type ClientEvent = { type: "adopted"; version: number; etag: string; source: ManifestSource } | FailedEvent;

export interface Logger {
  info?(message: string): void;
  warn?(message: string): void;
}

/** What the client reads of a `fetch` response. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What the client passes to `fetch`: a GET with its headers, an abort signal, no HTTP cache. */
export interface FetchInit {
  method: string;
  headers: { [name: string]: string };
  // The platform's AbortSignal (React Native's, the DOM's, Node's): typed loosely so that
  // each platform's `fetch` is accepted as it is declared.
  signal?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  cache?: "no-store";
}

/** A `fetch` as the client calls it. */
export interface Fetch {
  (url: string, init: FetchInit): PromiseLike<FetchResponse>;
}

export interface ClientOptions {
  /** The server's base URL (`https://routes.example.com`); the client asks for `/v1/manifest` under it. */
  server: string;
  /** A manifest shipped with the app, for a first start with nothing stored and no network. */
  bundled?: string;
  /**
   * The ETag the server sent with `bundled`, when `bundled` is the body it served
   * (`curl -D - https://routes.example.com/v1/manifest`): the client then never computes
   * it, which on Hermes takes longer than the compile. Without it, the bundled copy's ETag
   * is computed at its first use (the first poll, or a result's `manifest.etag`).
   */
  bundledEtag?: string;
  /** Where the last good manifest is kept between runs (AsyncStorage, MMKV, a file). */
  storage?: Storage;
  /**
   * The HTTP client; default the platform's `fetch`. A method signature, so that React
   * Native's, the DOM's and Node's `fetch` are accepted as they are declared.
   */
  fetch?(url: string, init: FetchInit): PromiseLike<FetchResponse>;
  policy?: Partial<UpdatePolicy>;
  logger?: Logger;
  /** SHA-256 as 64 hex digits, for platforms without WebCrypto that have a native one. */
  sha256?: (bytes: Uint8Array) => string | PromiseLike<string>;
  /** The clock the client waits on; default the platform's timers. */
  timers?: Timers;
  /**
   * The context `resolve(url)` uses when it is given none: the app's platform, idiom and
   * version, set once. An `appVersion` that is not a semantic version is refused here
   * (`createClient` throws a ContextError), never in a render path.
   */
  context?: ResolveContext;
}

/** A failed update, thrown inside the loop and reported as a `failed` event. */
export class Failure extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly status?: number, readonly retryAfter?: number) {
    super(message);
  }
}

