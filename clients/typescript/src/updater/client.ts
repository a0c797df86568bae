// The updater: the app's and backend's half of the routing update system (docs/clients.md),
// as SwitchboardClient is for Swift. It starts from the last good manifest in
// storage, else the bundled copy, else the server; then follows the server with
// conditional GETs held by `Prefer: wait`, backs off with full jitter, honours
// `Retry-After`, checks each body's SHA-256 against its ETag, refuses a manifest that does
// not compile and keeps the last good one. No `node:` module, Buffer or platform URL
// class: it runs on React Native's Hermes as on Node.

import { CompiledManifest, ContextError, ResolveContext, ResolveResult } from "../engine/compiled-manifest.js";
import { ManifestError } from "../engine/manifest.js";
import { SemanticVersion } from "../engine/version.js";
import { decodeUTF8 } from "../engine/utf8.js";
import { Storage, storedEntry } from "../storage/storage.js";
import { ClientEvent, ClientOptions, FailedEvent, Failure, Fetch, FetchResponse, ManifestInUse } from "./options.js";
import { UpdatePolicy, backoff, fullPolicy, hasParameter, intervalFor, proxyGaveUp, retryAfterSeconds } from "./policy.js";
import { Timers, platformTimers } from "./timers.js";
import { isPromiseLike, manifestEvent, sha256Of } from "./manifest-helpers.js";
import { fromBundle, manifestInUse, readStored } from "./first-copy.js";

interface AbortLike {
  abort(): void;
  signal: { aborted: boolean; addEventListener(type: "abort", listener: () => void): void };
}
declare const AbortController: { new (): AbortLike };

export class SwitchboardClient {
  private state: "idle" | "running" | "paused" = "idle";
  private manifestInUse: ManifestInUse | null = null;
  private failedLast: FailedEvent | null = null;
  private readonly listeners = new Set<(event: ClientEvent) => void>();
  private readonly policy: UpdatePolicy;
  /** Interrupts the request or pause in progress (stop, pause, refresh). */
  private interrupt: AbortLike | null = null;
  private loop: Promise<void> | null = null;
  private failures = 0;
  private refreshing: { resolve: () => void; promise: Promise<void> } | null = null;
  private readonly bootstrap: Promise<void>;
  private readonly waiting = new Set<() => void>();
  private readonly timers: Timers;
  private readonly context: ResolveContext;

  constructor(private readonly options: ClientOptions) {
    this.context = { ...(options.context ?? {}) };
    const version = this.context.appVersion;
    if (version !== undefined && version !== null && SemanticVersion.parse(version) === null) throw new ContextError("appVersion", version);
    this.policy = fullPolicy(options.policy);
    this.timers = options.timers ?? platformTimers;
    // A storage that reads synchronously (MMKV) puts a manifest in use before the constructor returns.
    let stored: ReturnType<Storage["read"]> = null;
    try {
      stored = options.storage ? options.storage.read() : null;
    } catch (e) {
      stored = Promise.reject(e);
    }
    if (isPromiseLike(stored)) {
      this.bootstrap = Promise.resolve(stored).then((text) => this.startFrom(text), (e) => {
        this.fail(new Failure("bootstrap", `cannot read the stored manifest: ${(e as Error).message}`));
        return this.startFrom(null);
      });
    } else {
      const done = this.startFrom(stored);
      this.bootstrap = done === undefined ? Promise.resolve() : done;
    }
  }

  /** The manifest in use, if there is one yet. */
  get current(): ManifestInUse | null {
    return this.manifestInUse;
  }

  /** Whether the client follows the server: not yet or no longer (`idle`), following (`running`), or paused by the app in the background (`paused`). */
  get mode(): "idle" | "running" | "paused" {
    return this.state;
  }

  /** The last update that failed, null once a manifest is adopted after it. */
  get lastFailure(): FailedEvent | null {
    return this.failedLast;
  }

  /**
   * What `GET /v1/resolve` answers for `url` with the manifest in use, in `context` (the
   * client's own when none is given); null before any manifest exists. Never throws: an
   * `appVersion` of `context` that is not a semantic version is replaced by the client's
   * own (a warning is logged), so a route gated by version stays closed to an app too old
   * for it.
   */
  resolve(url: string, context?: ResolveContext): ResolveResult | null {
    const m = this.manifestInUse;
    if (m === null) return null;
    let used = context ?? this.context;
    const version = used.appVersion;
    if (context !== undefined && version !== undefined && version !== null && SemanticVersion.parse(version) === null) {
      this.options.logger?.warn?.(`appVersion "${version}" is not a semantic version such as 7.2.0: resolved with the client's own (${this.context.appVersion ?? "none"})`);
      used = { ...context, appVersion: this.context.appVersion };
    }
    return m.compiled.resolve(url, used);
  }

  /** Calls `listener` with each manifest put in use and each failure; returns the function that unsubscribes it. */
  subscribe(listener: (event: ClientEvent) => void): () => void {
    this.listeners.add(listener);
    // A late subscriber hears the manifest in use first, as one there from the start did.
    const m = this.manifestInUse;
    if (m !== null) this.tell(listener, manifestEvent(m));
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves true once a manifest is in use, false if none is within `timeoutMs`. */
  ready(timeoutMs = 10000): Promise<boolean> {
    if (this.manifestInUse !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        this.timers.clearTimeout(timer);
        this.waiting.delete(wake);
        resolve(value);
      };
      const wake = () => done(true);
      const timer = this.timers.setTimeout(() => done(this.manifestInUse !== null), timeoutMs);
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

  /**
   * For an app back in the foreground: asks the server at once, then follows it again.
   * Nothing unless paused: a client never started, or stopped, stays so (`start()`).
   */
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
      const timer = this.timers.setTimeout(resolve, ms);
      controller.signal.addEventListener("abort", () => {
        this.timers.clearTimeout(timer);
        resolve();
      });
    });
  }

  // MARK: Starting

  private startFrom(stored: string | null | undefined): void | Promise<void> {
    const fail = (failure: Failure) => this.fail(failure);
    const fromStorage = stored ? readStored(stored, this.options, fail) : null;
    const adopt = (m: ManifestInUse | null) => {
      if (m === null) return;
      this.use(m);
    };
    if (isPromiseLike(fromStorage)) return Promise.resolve(fromStorage).then((m) => adopt(m ?? fromBundle(this.options, fail)));
    adopt(fromStorage ?? fromBundle(this.options, fail));
  }

  private use(m: ManifestInUse): void {
    this.manifestInUse = m;
    this.failedLast = null;
    if (this.options.logger?.info) this.options.logger.info(`using version ${m.version} ${m.etag} from the ${m.source}`);
    if (this.listeners.size > 0) this.emit(manifestEvent(m));
    for (const wake of Array.from(this.waiting)) wake();
  }

  private fail(failure: Failure): void {
    this.options.logger?.warn?.(`${failure.kind}: ${failure.message}`);
    const event: FailedEvent = { type: "failed", kind: failure.kind, message: failure.message };
    if (failure.status !== undefined) event.status = failure.status;
    if (failure.retryAfter !== undefined) event.retryAfter = failure.retryAfter;
    this.failedLast = event;
    this.emit(event);
  }

  private emit(event: ClientEvent): void {
    for (const listener of Array.from(this.listeners)) this.tell(listener, event);
  }

  private tell(listener: (event: ClientEvent) => void, event: ClientEvent): void {
    try {
      listener(event);
    } catch (e) {
      this.options.logger?.warn?.(`a listener threw: ${(e as Error).message}`);
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
  /**
   * Whether the server holds polls, as the last held poll answered 304 showed (null until
   * one has): a poll answered at once (a refresh's) is followed by a held one at once
   * unless the server is known not to hold them.
   */
  private serverHolds: boolean | null = null;

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
    const timer = this.timers.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const started = this.timers.now();
    const fetcher: Fetch | undefined = this.options.fetch ?? (globalThis as unknown as { fetch?: Fetch }).fetch;
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
      this.timers.clearTimeout(timer);
    }
    const interval = intervalFor(policy, response.headers.get("Cache-Control"));
    switch (response.status) {
      case 304: {
        // A poll the server held answers after `wait`: ask again at once. One that came
        // back much sooner was not held (a proxy that dropped Prefer), and asking again at
        // once would spin.
        if (!held) return this.serverHolds !== false && policy.wait > 0 ? 0 : interval;
        this.serverHolds = hasParameter(response.headers.get("Preference-Applied"), "wait") && this.timers.now() - started >= (policy.wait * 1000) / 2;
        return this.serverHolds ? 0 : interval;
      }
      case 200:
        // A new manifest: ask again at once, held on its ETag. A 200 naming the manifest in
        // use is no news: never ask again at once for it.
        return (await this.adopt(response, body as Uint8Array, known)) && policy.wait > 0 ? 0 : interval;
      case 502:
      case 504:
        if (proxyGaveUp(policy, response.status, held, this.timers.now() - started)) {
          // The proxy's timeout is under the wait: ask again, as after a quiet 304.
          this.options.logger?.info?.(`a proxy answered ${response.status} to a poll held ${this.timers.now() - started} ms; asking again (lower the policy's wait under the proxy's timeout)`);
          return 0;
        }
        throw new Failure("status", `the server answered ${response.status}`, response.status);
      case 429:
      case 503:
        throw new Failure("status", `the server answered ${response.status}`, response.status, retryAfterSeconds(response.headers.get("Retry-After"), this.timers.now()));
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
    const digest = await sha256Of(bytes, this.options.sha256);
    if (etag.startsWith("\"sha256-") && etag !== `"sha256-${digest}"`) {
      throw new Failure("integrity", `the body (${bytes.length} bytes) is not the manifest its ETag ${etag} names`);
    }
    const body = decodeUTF8(bytes);
    if (body === null) throw new Failure("invalidManifest", "the server's manifest is not UTF-8; not used");
    let compiled: CompiledManifest;
    try {
      // The body is the canonical text its verified ETag names: no need to compute it again.
      compiled = new CompiledManifest(body, etag === `"sha256-${digest}"` ? { etag } : {});
    } catch (e) {
      const problems = e instanceof ManifestError ? e.diagnostics.filter((d) => d.severity === "error") : [];
      const first = problems.length > 0 ? `: ${problems[0].pointer} ${problems[0].message}` : `: ${(e as Error).message}`;
      throw new Failure("invalidManifest", `the server's manifest does not compile (${problems.length} problems)${first}; not used`);
    }
    if (etag === "") etag = compiled.etag;
    if (etag === known?.etag) return false;
    if (this.state === "idle" && this.refreshing === null) return false;
    this.use(manifestInUse(compiled, etag, "server"));
    if (this.options.storage) {
      try {
        await this.options.storage.write(storedEntry(body, etag));
      } catch (e) {
        this.fail(new Failure("persist", `cannot store the manifest: ${(e as Error).message}; it is used all the same`));
      }
    }
    return true;
  }

}

/** Makes a client; it asks nothing until `start()`. */
export function createClient(options: ClientOptions): SwitchboardClient {
  return new SwitchboardClient(options);
}
