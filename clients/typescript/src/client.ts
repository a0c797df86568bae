// The updater: the app's and backend's half of the routing update system (the contract's
// §6), as SwitchboardClient is for Swift. It starts from the last good manifest in
// storage, else the bundled copy, else the server; then follows the server with
// conditional GETs held by `Prefer: wait`, backs off with full jitter, honours
// `Retry-After`, checks each body's SHA-256 against its ETag, refuses a manifest that does
// not compile and keeps the last good one. No `node:` module, Buffer or platform URL
// class: it runs on React Native's Hermes as on Node.

import { CompiledManifest, ResolveContext, ResolveResult } from "./engine";
import { ManifestError } from "./manifest";
import { sha256Hex } from "./sha256";
import { decodeUTF8, encodeUTF8 } from "./utf8";

/** Where the manifest in use came from. */
export type ManifestSource = "storage" | "bundle" | "server";

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

export type ClientEvent =
  | { type: "manifest"; version: number; etag: string; source: ManifestSource }
  | { type: "failed"; kind: FailureKind; message: string; status?: number; retryAfter?: number };

/** Keeps one string; the client keeps its last good manifest in it. Either method may return a promise. */
export interface Storage {
  read(): string | null | undefined | Promise<string | null | undefined>;
  write(value: string): void | Promise<void>;
}

export interface Logger {
  info?(message: string): void;
  warn?(message: string): void;
}

/** When the client asks the server again. Times in milliseconds; `wait` in seconds. */
export interface UpdatePolicy {
  /** Seconds a blocking poll asks the server to hold it (`Prefer: wait=N`), 0 to 300; 0 sends no `Prefer`. Default 50. */
  wait: number;
  /** The shortest interval between polls that are not held, whatever `max-age` says. Default 60,000. */
  minimumInterval: number;
  /** The first retry after a failure waits up to this (full jitter), doubling per failure in a row... Default 1,000. */
  initialBackoff: number;
  /** ...up to this. Default 300,000. */
  maximumBackoff: number;
  /** How long a request that is not held may take (a held one: `wait` plus its jitter plus this). Default 30,000. */
  requestTimeout: number;
}

type FetchResponse = {
  status: number;
  headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
};
type Fetch = (url: string, init: { method: string; headers: { [name: string]: string }; signal: unknown; cache?: string }) => Promise<FetchResponse>;

export interface ClientOptions {
  /** The server's base URL (`https://routes.example.com`); the client asks for `/v1/manifest` under it. */
  server: string;
  /** A manifest shipped with the app, for a first start with nothing stored and no network. */
  bundled?: string;
  /** Where the last good manifest is kept between runs (AsyncStorage, MMKV, a file). */
  storage?: Storage;
  /** The HTTP client; default the platform's `fetch`. */
  fetch?: Fetch;
  policy?: Partial<UpdatePolicy>;
  logger?: Logger;
  /** SHA-256 as 64 hex digits, for platforms without WebCrypto that have a native one. */
  sha256?: (bytes: Uint8Array) => string | Promise<string>;
}

class Failure extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly status?: number, readonly retryAfter?: number) {
    super(message);
  }
}

const MAGIC = "switchboard-client-cache 1";

/** A storage entry: a header line with the body's SHA-256, length and ETag, then the body. */
function storedEntry(body: string, etag: string, digest: string): string {
  return `${MAGIC} ${digest} ${encodeUTF8(body).length} ${etag}\n${body}`;
}

interface AbortLike {
  abort(): void;
  signal: { aborted: boolean; addEventListener(type: "abort", listener: () => void): void };
}
declare const AbortController: { new (): AbortLike };
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

export class SwitchboardClient {
  private state: "idle" | "running" | "paused" = "idle";
  private manifestInUse: ManifestInUse | null = null;
  private readonly listeners = new Set<(event: ClientEvent) => void>();
  private readonly policy: UpdatePolicy;
  /** Interrupts the request or pause in progress (stop, pause, refresh). */
  private interrupt: AbortLike | null = null;
  private loop: Promise<void> | null = null;
  private failures = 0;
  private refreshing: { resolve: () => void; promise: Promise<void> } | null = null;
  private readonly bootstrap: Promise<void>;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly options: ClientOptions) {
    const p = options.policy ?? {};
    this.policy = {
      wait: Math.min(Math.max(Math.floor(p.wait ?? 50), 0), 300),
      minimumInterval: p.minimumInterval ?? 60000,
      initialBackoff: p.initialBackoff ?? 1000,
      maximumBackoff: p.maximumBackoff ?? 300000,
      requestTimeout: p.requestTimeout ?? 30000,
    };
    // A storage that reads synchronously (MMKV) puts a manifest in use before the constructor returns.
    let stored: ReturnType<Storage["read"]> = null;
    try {
      stored = options.storage ? options.storage.read() : null;
    } catch (e) {
      stored = Promise.reject(e);
    }
    if (stored instanceof Promise) {
      this.bootstrap = stored.then((text) => this.startFrom(text), (e) => {
        this.fail(new Failure("bootstrap", `cannot read the stored manifest: ${(e as Error).message}`));
        return this.startFrom(null);
      });
    } else {
      const done = this.startFrom(stored);
      this.bootstrap = done instanceof Promise ? done : Promise.resolve();
    }
  }

  /** The manifest in use, if there is one yet. */
  get current(): ManifestInUse | null {
    return this.manifestInUse;
  }

  /** What `GET /v1/resolve` answers for `url` with the manifest in use; null before any exists. */
  resolve(url: string, context?: ResolveContext): ResolveResult | null {
    return this.manifestInUse === null ? null : this.manifestInUse.compiled.resolve(url, context);
  }

  /** Calls `listener` with each manifest put in use and each failure; returns the function that unsubscribes it. */
  subscribe(listener: (event: ClientEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves true once a manifest is in use, false if none is within `timeoutMs`. */
  ready(timeoutMs = 10000): Promise<boolean> {
    if (this.manifestInUse !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve(value);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(this.manifestInUse !== null), timeoutMs);
      this.waiting.add(wake);
    });
  }

  /** Starts following the server (again after `stop()`; nothing while already running). */
  start(): void {
    if (this.state !== "idle") return;
    this.state = "running";
    this.failures = 0;
    this.run();
  }

  /** Stops following the server: a held poll ends at once. The manifest in use stays. */
  async stop(): Promise<void> {
    this.state = "idle";
    await this.halt();
  }

  /** For an app going to the background: ends the held poll, asks nothing until `resume()`. */
  async pause(): Promise<void> {
    if (this.state !== "running") return;
    this.state = "paused";
    await this.halt();
  }

  /** For an app back in the foreground: asks the server at once, then follows it again. */
  resume(): void {
    if (this.state !== "paused") return;
    this.state = "running";
    this.failures = 0;
    this.run();
  }

  /**
   * Asks the server now with a conditional GET answered at once (ending a held poll or a
   * pause between polls); resolves when that answer is handled, whatever it was. While
   * stopped or paused it asks once.
   */
  refresh(): Promise<void> {
    if (this.refreshing !== null) return this.refreshing.promise;
    let resolve = () => {};
    const promise = new Promise<void>((r) => { resolve = r; });
    this.refreshing = { resolve, promise };
    if (this.state === "running") {
      this.interrupt?.abort();
    } else {
      this.bootstrap.then(() => this.step(false)).then(() => this.finishRefresh(), () => this.finishRefresh());
    }
    return promise;
  }

  private finishRefresh(): void {
    const r = this.refreshing;
    this.refreshing = null;
    r?.resolve();
  }

  private async halt(): Promise<void> {
    this.interrupt?.abort();
    const loop = this.loop;
    if (loop) await loop;
  }

  private run(): void {
    const previous = this.loop ?? Promise.resolve();
    const loop: Promise<void> = previous.then(() => this.bootstrap).then(async () => {
      while (this.state === "running") {
        // A refresh asked for is a poll answered at once; it is over when that answer is handled.
        const refresh = this.refreshing !== null;
        const pause = await this.step(!refresh);
        if (refresh) this.finishRefresh();
        if (this.state !== "running") break;
        if (pause > 0 && this.refreshing === null) await this.sleep(pause);
      }
    }).finally(() => {
      if (this.loop === loop) this.loop = null;
    });
    this.loop = loop;
  }

  /** Waits `ms`, or less if interrupted. */
  private sleep(ms: number): Promise<void> {
    const controller = new AbortController();
    this.interrupt = controller;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  // MARK: Starting

  private startFrom(stored: string | null | undefined): void | Promise<void> {
    const fromStorage = stored ? this.readStored(stored) : null;
    const adopt = (m: ManifestInUse | null) => {
      if (m === null) return;
      this.use(m);
    };
    if (fromStorage instanceof Promise) return fromStorage.then((m) => adopt(m ?? this.fromBundle()));
    adopt(fromStorage ?? this.fromBundle());
  }

  private readStored(text: string): ManifestInUse | null | Promise<ManifestInUse | null> {
    const newline = text.indexOf("\n");
    const fields = newline < 0 ? [] : text.slice(0, newline).split(" ");
    const body = text.slice(newline + 1);
    const damaged = (why: string) => {
      this.fail(new Failure("bootstrap", `the stored manifest is damaged: ${why}; not used`));
      return null;
    };
    if (fields.length < 5 || `${fields[0]} ${fields[1]}` !== MAGIC) return damaged("not a switchboard client cache");
    const bytes = encodeUTF8(body);
    if (bytes.length !== Number(fields[3])) return damaged(`${bytes.length} bytes of manifest, the header says ${fields[3]}`);
    const etag = fields.slice(4).join(" ");
    const check = (digest: string) => {
      if (digest !== fields[2]) return damaged("the manifest's SHA-256 is not the one recorded");
      try {
        return this.inUse(new CompiledManifest(body), etag, "storage");
      } catch (e) {
        this.fail(new Failure("bootstrap", `the stored manifest does not compile: ${(e as Error).message}; not used`));
        return null;
      }
    };
    const digest = this.options.sha256 ? this.options.sha256(bytes) : sha256Hex(bytes);
    return digest instanceof Promise ? digest.then(check) : check(digest);
  }

  private fromBundle(): ManifestInUse | null {
    if (this.options.bundled === undefined) return null;
    try {
      const compiled = new CompiledManifest(this.options.bundled);
      return this.inUse(compiled, compiled.etag, "bundle");
    } catch (e) {
      this.fail(new Failure("bootstrap", `the bundled manifest does not compile: ${(e as Error).message}; not used`));
      return null;
    }
  }

  private inUse(compiled: CompiledManifest, etag: string, source: ManifestSource): ManifestInUse {
    return { compiled, etag, source, version: compiled.version };
  }

  private use(m: ManifestInUse): void {
    this.manifestInUse = m;
    this.options.logger?.info?.(`using version ${m.version} ${m.etag} from the ${m.source}`);
    this.emit({ type: "manifest", version: m.version, etag: m.etag, source: m.source });
    for (const wake of Array.from(this.waiting)) wake();
  }

  private fail(failure: Failure): void {
    this.options.logger?.warn?.(`${failure.kind}: ${failure.message}`);
    const event: ClientEvent = { type: "failed", kind: failure.kind, message: failure.message };
    if (failure.status !== undefined) event.status = failure.status;
    if (failure.retryAfter !== undefined) event.retryAfter = failure.retryAfter;
    this.emit(event);
  }

  private emit(event: ClientEvent): void {
    for (const listener of Array.from(this.listeners)) {
      try {
        listener(event);
      } catch (e) {
        this.options.logger?.warn?.(`a listener threw: ${(e as Error).message}`);
      }
    }
  }

  // MARK: Following the server

  /** One request (held when `hold` and there is a manifest to compare with) and the pause its answer calls for (milliseconds). */
  private async step(hold = true): Promise<number> {
    try {
      const pause = await this.poll(hold);
      this.failures = 0;
      return pause;
    } catch (e) {
      if (this.interruptedOnPurpose) return 0;
      const failure = e instanceof Failure ? e : new Failure("unreachable", (e as Error).message);
      this.failures++;
      const wait = failure.retryAfter !== undefined ? failure.retryAfter * 1000 : backoff(this.policy, this.failures);
      this.fail(failure);
      this.options.logger?.warn?.(`retrying in ${Math.round(wait)} ms`);
      return wait;
    }
  }

  /** Whether the request just interrupted was ended by stop, pause or refresh rather than failing. */
  private interruptedOnPurpose = false;
  /** Whether the last held poll answered 304 was held by the server (so a poll answered at once needs no pause after it). */
  private serverHolds = false;

  private async poll(hold: boolean): Promise<number> {
    const { policy } = this;
    const known = this.manifestInUse;
    const headers: { [name: string]: string } = { Accept: "application/json" };
    const held = hold && known !== null && policy.wait > 0;
    if (known !== null) headers["If-None-Match"] = known.etag;
    if (held) headers.Prefer = `wait=${policy.wait}`;
    const url = this.options.server.replace(/\/+$/, "") + "/v1/manifest";
    const timeout = held ? policy.wait * 1000 + (policy.wait * 1000) / 16 + policy.requestTimeout : policy.requestTimeout;
    const controller = new AbortController();
    this.interrupt = controller;
    this.interruptedOnPurpose = false;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const started = Date.now();
    const fetcher = this.options.fetch ?? (globalThis as unknown as { fetch?: Fetch }).fetch;
    if (fetcher === undefined) throw new Failure("unreachable", "no fetch: pass one in the client's options");
    let response: FetchResponse, body: Uint8Array | null = null;
    try {
      response = await fetcher(url, { method: "GET", headers, signal: controller.signal, cache: "no-store" });
      if (response.status === 200) body = new Uint8Array(await response.arrayBuffer());
    } catch (e) {
      if (!timedOut && controller.signal.aborted) {
        this.interruptedOnPurpose = true;
        throw e;
      }
      throw timedOut
        ? new Failure("timeout", `no answer from ${url} within ${timeout} ms`)
        : new Failure("unreachable", `${url}: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    const interval = intervalFor(policy, response.headers.get("Cache-Control"));
    switch (response.status) {
      case 304: {
        // A poll the server held answers after `wait`: ask again at once. One that came
        // back much sooner was not held (a proxy that dropped Prefer), and asking again at
        // once would spin.
        if (!held) return this.serverHolds ? 0 : interval;
        this.serverHolds = hasParameter(response.headers.get("Preference-Applied"), "wait") && Date.now() - started >= (policy.wait * 1000) / 2;
        return this.serverHolds ? 0 : interval;
      }
      case 200:
        // A new manifest: ask again at once, held on its ETag. A 200 naming the manifest in
        // use is no news: never ask again at once for it.
        return (await this.adopt(response, body as Uint8Array, known)) && policy.wait > 0 ? 0 : interval;
      case 429:
      case 503:
        throw new Failure("status", `the server answered ${response.status}`, response.status, retryAfterSeconds(response.headers.get("Retry-After")));
      default:
        throw new Failure("status", `the server answered ${response.status}`, response.status);
    }
  }

  /** Checks a 200 and puts its manifest in use when it is another one; returns whether it was. */
  private async adopt(response: FetchResponse, bytes: Uint8Array, known: ManifestInUse | null): Promise<boolean> {
    const contentType = response.headers.get("Content-Type") ?? "none";
    if (contentType.split(";")[0].trim().toLowerCase() !== "application/json") {
      throw new Failure("contentType", `the manifest came as ${contentType}, not application/json`);
    }
    let etag = response.headers.get("ETag") ?? "";
    if (etag.startsWith("W/")) etag = etag.slice(2);
    // The ETag is the SHA-256 of the canonical bytes, which are the body.
    const digest = await this.digest(bytes);
    if (etag.startsWith("\"sha256-") && etag !== `"sha256-${digest}"`) {
      throw new Failure("integrity", `the body (${bytes.length} bytes) is not the manifest its ETag ${etag} names`);
    }
    const body = decodeUTF8(bytes);
    if (body === null) throw new Failure("invalidManifest", "the server's manifest is not UTF-8; not used");
    let compiled: CompiledManifest;
    try {
      compiled = new CompiledManifest(body);
    } catch (e) {
      const problems = e instanceof ManifestError ? e.diagnostics.filter((d) => d.severity === "error") : [];
      const first = problems.length > 0 ? `: ${problems[0].pointer} ${problems[0].message}` : `: ${(e as Error).message}`;
      throw new Failure("invalidManifest", `the server's manifest does not compile (${problems.length} problems)${first}; not used`);
    }
    if (etag === "") etag = compiled.etag;
    if (etag === known?.etag) return false;
    if (this.state === "idle" && this.refreshing === null) return false;
    this.use(this.inUse(compiled, etag, "server"));
    if (this.options.storage) {
      try {
        await this.options.storage.write(storedEntry(body, etag, digest));
      } catch (e) {
        this.fail(new Failure("persist", `cannot store the manifest: ${(e as Error).message}; it is used all the same`));
      }
    }
    return true;
  }

  /** The SHA-256 of `bytes`: the injected function, else WebCrypto, else the built-in one. */
  private async digest(bytes: Uint8Array): Promise<string> {
    if (this.options.sha256) return this.options.sha256(bytes);
    const subtle = (globalThis as unknown as { crypto?: { subtle?: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } } }).crypto?.subtle;
    if (subtle) {
      const hash = new Uint8Array(await subtle.digest("SHA-256", bytes));
      let hex = "";
      for (let i = 0; i < hash.length; i++) hex += hash[i].toString(16).padStart(2, "0");
      return hex;
    }
    return sha256Hex(bytes);
  }
}

/** Makes a client; it asks nothing until `start()`. */
export function createClient(options: ClientOptions): SwitchboardClient {
  return new SwitchboardClient(options);
}

// MARK: - The arithmetic of the loop

/** Exponential backoff with full jitter: anywhere from 0 to `initialBackoff * 2^(failures-1)`, capped. */
export function backoff(policy: UpdatePolicy, failures: number): number {
  const ceiling = Math.min(policy.initialBackoff * 2 ** Math.min(Math.max(failures - 1, 0), 30), policy.maximumBackoff);
  return ceiling * Math.random();
}

/** `max-age` (at least the minimum interval) plus up to a tenth of it at random. */
export function intervalFor(policy: UpdatePolicy, cacheControl: string | null): number {
  const maxAge = parameter(cacheControl, "max-age");
  const seconds = maxAge !== undefined && maxAge !== null && /^[0-9]+$/.test(maxAge) ? Number(maxAge) : null;
  const base = Math.max(seconds === null ? policy.minimumInterval : seconds * 1000, policy.minimumInterval);
  return base + base * 0.1 * Math.random();
}

/** The value of the first `name[=value]` item of a comma-separated header; null when it has no value, undefined when absent. */
function parameter(header: string | null, name: string): string | null | undefined {
  if (header === null) return undefined;
  for (const item of header.split(",")) {
    const token = item.split(";")[0];
    const eq = token.indexOf("=");
    const key = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    if (key !== name) continue;
    if (eq < 0) return null;
    let value = token.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}

function hasParameter(header: string | null, name: string): boolean {
  return parameter(header, name) !== undefined;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * `Retry-After` in seconds: delta-seconds or an HTTP date (IMF-fixdate, RFC 850 or asctime);
 * undefined when absent or unreadable; at most a day, so a typo cannot silence a client longer.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text.length === 0) return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text.slice(0, 6)), 86400);
  const m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text)
    ?? /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text);
  const a = /^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(text);
  let date: number;
  if (m !== null) {
    const month = MONTHS.indexOf(m[2]);
    if (month < 0) return undefined;
    let year = Number(m[3]);
    if (m[3].length === 2) year += year < 70 ? 2000 : 1900;
    date = Date.UTC(year, month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  } else if (a !== null) {
    const month = MONTHS.indexOf(a[1]);
    if (month < 0) return undefined;
    date = Date.UTC(Number(a[6]), month, Number(a[2]), Number(a[3]), Number(a[4]), Number(a[5]));
  } else {
    return undefined;
  }
  return Math.min(Math.max(Math.floor((date - now) / 1000), 0), 86400);
}
