// A compiled manifest and resolution (docs/manifest.md, "Resolution"): the result of `resolve`,
// serialized with JSON.stringify, is byte for byte what the server's `GET /v1/resolve`
// answers for the same canonical manifest, URL and context.

import { emptyObject, JSONObject, JSONValue, setMember } from "./json.js";
import { parseJSON } from "./json-text.js";
import { canonicalText } from "./canonical.js";
import { Diagnostic, Manifest, ManifestError, ParamDeclaration, Presentation, Route, listed } from "./manifest.js";
import { decodeManifest } from "./manifest-decoder.js";
import { ParamType, PatternSegment, STRING, accepts, intValue } from "./pattern.js";
import { sha256Hex } from "./sha256.js";
import { Candidate, RouteTrie, SegmentMatcher } from "./trie.js";
import { TableValidator } from "./validator.js";
import { maxRedirects, substitute } from "./redirect.js";
import type { PresentationJSON, ResolveResult } from "./result.js";
import { URLScope } from "./url.js";
import { encodeUTF8, lowercaseScalars, wellFormed } from "./utf8.js";
import { SemanticVersion } from "./version.js";

export type { ExternalResult, FallbackResult, ManifestMember, MatchedResult, PresentationJSON, RejectedResult, ResolveResult } from "./result.js";

/** Who is asking: chooses variants and gates routes by `since`/`until`. */
export interface ResolveContext {
  platform?: string;
  idiom?: string;
  /** A semantic version such as `7.2.0`. */
  appVersion?: string;
}


/** An `appVersion` in a context that is not a semantic version (the server answers 400). */
export class ContextError extends Error {
  constructor(readonly field: string, text: string) {
    super(`appVersion "${text}" is not a semantic version such as 7.2.0`);
    this.name = "ContextError";
  }
}

export { maxRedirects } from "./redirect.js";

/** Where results of a route, pattern and variant send the app. */
interface Target {
  route: { name: string; pattern: string } | null;
  destination: string;
  presentation: PresentationJSON;
  web: boolean;
}

function presentationObject(p: Presentation): PresentationJSON {
  const out = emptyObject();
  out.style = p.style;
  for (const [k, v] of p.options) setMember(out, k, v);
  return Object.freeze(out) as PresentationJSON;
}

/**
 * A manifest ready to resolve with: decoded, compiled into tries, with its canonical ETag.
 *
 * The canonical text and its SHA-256 (the ETag) are computed when first read, not by the
 * constructor: on an interpreter (Hermes, QuickJS) the digest of a 1,000-route manifest
 * takes longer than the rest of a compile, and an app's first resolve does not need it.
 * A result's `manifest.etag` reads it then. Given the ETag the server sent with the text
 * it served (`options.etag`), the engine computes neither.
 */
export class CompiledManifest {
  readonly manifest: Manifest;
  readonly warnings: Diagnostic[];
  private canonicalText: string | null = null;
  private etagText: string | null;
  private readonly scope: URLScope;
  private readonly general: RouteTrie;
  private readonly byHost: Map<string, RouteTrie>;
  private readonly targets: Target[][];
  private readonly fallback: Target;
  /** Each result's `manifest`: `{version, etag}`, its ETag read when first asked for. */
  private manifestMember: { version: number; etag: string };
  private readonly external: { style: "external" };
  /** Per route, whether it can refuse a candidate whose types matched (a version gate, a query param it checks). */
  private readonly refusable: boolean[];

  /**
   * Compiles manifest JSON text; throws ManifestError listing every problem when it cannot
   * be used. `options.etag`: the ETag the server sent with `text`, when `text` is the body
   * it served (its canonical form), so that it need not be computed.
   */
  constructor(text: string, options: { etag?: string } = {}) {
    this.etagText = options.etag ?? null;
    let document: JSONValue;
    try {
      document = parseJSON(text);
    } catch (e) {
      throw new ManifestError([{ severity: "error", code: "invalid-json", pointer: "", message: (e as Error).message }]);
    }
    const decoded = decodeManifest(document);
    const manifest = decoded.manifest;
    if (manifest === null) throw new ManifestError(listed(decoded.diagnostics));
    // The table-wide checks run even after decoding problems, on the routes that decoded,
    // so that one run reports every problem, as the server's does.
    const key = manifest.caseSensitive ? (literal: string) => literal : lowercaseScalars;
    const general: Candidate[] = [];
    const byHost = new Map<string, Candidate[]>();
    manifest.routes.forEach((route, r) => {
      route.patterns.forEach((pattern, p) => {
        pattern.expansions.forEach((expansion, e) => {
          const segments = expansion.map((s) => matcher(s, route, manifest.caseSensitive));
          const candidate = new Candidate(r, p, e, segments, route.priority, route.name);
          if (route.hosts === null) general.push(candidate);
          else for (const host of route.hosts) {
            const list = byHost.get(host);
            if (list) list.push(candidate);
            else byHost.set(host, [candidate]);
          }
        });
      });
    });
    this.general = new RouteTrie(general);
    this.byHost = new Map(Array.from(byHost, ([host, list]) => [host, new RouteTrie(list)]));
    const validator = new TableValidator(manifest, this.general, this.byHost, key);
    const diagnostics = listed(decoded.diagnostics.concat(validator.validate()), validator.unlisted);
    if (diagnostics.some((d) => d.severity === "error")) throw new ManifestError(diagnostics);
    this.manifest = manifest;
    this.warnings = diagnostics;
    this.manifestMember = this.etagText !== null ? Object.freeze({ version: manifest.version, etag: this.etagText }) : this.lazyManifestMember();
    this.scope = new URLScope(manifest.hostKeys, manifest.schemes);
    this.targets = manifest.routes.map((r) => {
      const targets: Target[] = [];
      for (const pattern of r.patterns) {
        const route = Object.freeze({ name: r.name, pattern: pattern.text });
        targets.push({ route, destination: r.destination ?? "", presentation: presentationObject(r.presentation), web: r.presentation.style === "web" });
        for (const v of r.variants) {
          const presentation = v.presentation ?? r.presentation;
          targets.push({ route, destination: v.destination ?? r.destination ?? "", presentation: presentationObject(presentation), web: presentation.style === "web" });
        }
      }
      return targets;
    });
    this.fallback = { route: null, destination: manifest.fallback.destination, presentation: presentationObject(manifest.fallback.presentation), web: true };
    this.external = Object.freeze({ style: "external" as const });
    this.refusable = manifest.routes.map((r) => r.since !== null || r.until !== null || r.queryChecks.length > 0);
  }

  /** The canonical manifest text (what `GET /v1/manifest` serves), made when first read. */
  get canonical(): string {
    if (this.canonicalText === null) this.canonicalText = canonicalText(this.manifest);
    return this.canonicalText;
  }

  /** `"sha256-<64 hex>"`, quotes included, as the server sends it in `ETag`; computed when first read. */
  get etag(): string {
    if (this.etagText === null) {
      this.etagText = `"sha256-${sha256Hex(encodeUTF8(this.canonical))}"`;
      this.manifestMember = Object.freeze({ version: this.manifest.version, etag: this.etagText });
    }
    return this.etagText;
  }

  /** `{version, etag}` whose `etag` is computed when first read (by a result's reader). */
  private lazyManifestMember(): { version: number; etag: string } {
    const member = { version: this.manifest.version } as { version: number; etag: string };
    Object.defineProperty(member, "etag", { enumerable: true, get: () => this.etag });
    return Object.freeze(member);
  }

  /** The manifest's own version number. */
  get version(): number {
    return this.manifest.version;
  }

  /**
   * What `GET /v1/resolve` answers for `url` in `context`. Throws ContextError when the
   * context's `appVersion` is not a semantic version.
   */
  resolve(url: string, context: ResolveContext = {}): ResolveResult {
    let version: SemanticVersion | null = null;
    if (context.appVersion !== undefined && context.appVersion !== null) {
      version = SemanticVersion.parse(context.appVersion);
      if (version === null) throw new ContextError("appVersion", context.appVersion);
    }
    const classified = this.scope.classify(url);
    if (classified.kind === "rejected") {
      return { url: wellFormed(url), status: "rejected", reason: classified.reason, manifest: this.manifestMember };
    }
    if (classified.kind === "external") {
      return { url, status: "external", presentation: this.external, manifest: this.manifestMember };
    }
    const { host, query, fragment } = classified;
    const found = this.route(host, classified.segments, query, version);
    if (found === null) {
      const params = emptyObject();
      params.url = url;
      const { destination, presentation } = this.fallback;
      return fragment === null
        ? { url, status: "fallback", destination, params, presentation, manifest: this.manifestMember }
        : { url, status: "fallback", destination, params, presentation, fragment, manifest: this.manifestMember };
    }
    const { route, candidate, segments } = found;
    let slot = 0;
    for (let k = 0; k < route.variants.length; k++) {
      const v = route.variants[k];
      if (v.platforms !== null && (context.platform === undefined || !v.platforms.includes(context.platform))) continue;
      if (v.idioms !== null && (context.idiom === undefined || !v.idioms.includes(context.idiom))) continue;
      if (v.appVersion !== null && (version === null || !v.appVersion.contains(version))) continue;
      slot = k + 1;
      break;
    }
    const target = this.targets[candidate.route][candidate.patternIndex * (1 + route.variants.length) + slot];
    const webURL = target.web && !candidate.binds("url") && !route.inject.some(([k]) => k === "url");
    const matchedRoute = target.route as { name: string; pattern: string }, { destination, presentation } = target;
    const values = params({ route, candidate, segments, query }, webURL ? url : null);
    // Two literals, one shape each: members in the server's order, `fragment` when the URL has one.
    return fragment === null
      ? { url, status: "matched", route: matchedRoute, destination, params: values, presentation, manifest: this.manifestMember }
      : { url, status: "matched", route: matchedRoute, destination, params: values, presentation, fragment, manifest: this.manifestMember };
  }

  /** The route that takes the URL after redirects, with the segments it matched; null for the fallback. */
  private route(host: string | null, segments: string[], query: [string, string][], version: SemanticVersion | null) {
    const refusable = this.refusable;
    const accept = (candidate: Candidate, typeFailed: boolean) =>
      !typeFailed && (!refusable[candidate.route] || this.refusal(candidate, query, version) === null);
    for (let hops = 0; ; ) {
      const keys = this.manifest.caseSensitive ? segments : lowercased(segments);
      const restricted = host === null ? undefined : this.byHost.get(host);
      const candidate = (restricted ? restricted.match(segments, keys, accept) : null) ?? this.general.match(segments, keys, accept);
      if (candidate === null) return null;
      const route = this.manifest.routes[candidate.route];
      if (route.redirect === null) return { route, candidate, segments };
      segments = substitute(route.redirect, candidate, segments);
      hops++;
      if (hops > maxRedirects) return null;
    }
  }

  /** Why `candidate` cannot take the URL (a version gate or a query param), or null. */
  private refusal(candidate: Candidate, query: [string, string][], version: SemanticVersion | null): string | null {
    const route = this.manifest.routes[candidate.route];
    if (version !== null) {
      if (route.since !== null && version.compare(route.since) < 0) return "since";
      if (route.until !== null && version.compare(route.until) >= 0) return "until";
    }
    for (const d of route.queryChecks) {
      if (candidate.binds(d.name)) continue;
      let present = false;
      for (const [key, value] of query) {
        if (key !== d.name) continue;
        present = true;
        if (!accepts(d.type, value)) return "query type";
      }
      if (!present && d.required && d.defaultValue === undefined) return "missing";
    }
    return null;
  }
}

/** Segments as literal edges are keyed when literals compare case-insensitively. */
function lowercased(segments: string[]): string[] {
  const keys = new Array<string>(segments.length);
  for (let i = 0; i < segments.length; i++) keys[i] = lowercaseScalars(segments[i]);
  return keys;
}

function matcher(segment: PatternSegment, route: Route, caseSensitive: boolean): SegmentMatcher {
  if (segment.kind === "literal") return { kind: "literal", key: caseSensitive ? segment.text : lowercaseScalars(segment.text) };
  const type = route.params.find((d) => d.name === segment.name)?.type ?? STRING;
  return { kind: segment.kind, name: segment.name, type };
}

/** A typed value as returned: `int` as a number, `uuid` lowercased. */
function convert(value: string, type: ParamType): JSONValue {
  if (type.name === "int") {
    const n = intValue(value);
    return n === null ? value : n;
  }
  return type.name === "uuid" ? lowercaseScalars(value) : value;
}

/** Where a param's value comes from: a segment, the segments from a depth on (a wildcard), a query key, a constant. */
type Source = { segment: number } | { tail: number } | { query: string } | { value: JSONValue };

interface Match {
  route: Route;
  candidate: Candidate;
  segments: string[];
  query: [string, string][];
}

function read(match: Match, source: Source, type: ParamType): JSONValue {
  if ("segment" in source) return convert(match.segments[source.segment], type);
  if ("tail" in source) return convert(match.segments.slice(source.tail).join("/"), type);
  if ("query" in source) {
    const values: JSONValue[] = [];
    for (const [k, v] of match.query) if (k === source.query) values.push(convert(v, type));
    return values.length === 1 ? values[0] : values;
  }
  return typeof source.value === "string" ? convert(source.value, type) : source.value;
}

function hasQuery(query: [string, string][], name: string): boolean {
  for (let i = 0; i < query.length; i++) if (query[i][0] === name) return true;
  return false;
}

/** A declared param's query values, or its default. */
function declaredSource(match: Match, d: ParamDeclaration): Source | null {
  if (hasQuery(match.query, d.name)) return { query: d.name };
  return d.defaultValue === undefined ? null : { value: d.defaultValue };
}

/** Where the path, declared or query param `name` comes from (what an injected copy reads). */
function matchedSource(match: Match, name: string): [Source, ParamType] | null {
  const bound = match.candidate.binding(name);
  if (bound !== null) return [bound.wildcard ? { tail: bound.depth } : { segment: bound.depth }, bound.type];
  const d = declaration(match.route, name);
  if (d !== null) {
    const source = declaredSource(match, d);
    return source === null ? null : [source, d.type];
  }
  return hasQuery(match.query, name) ? [{ query: name }, STRING] : null;
}

function declaration(route: Route, name: string): ParamDeclaration | null {
  for (const d of route.params) if (d.name === name) return d;
  return null;
}

/** Whether the param `name` gives way to an injected one or to the web `url`, added last in its place. */
function overridden(match: Match, name: string, webURL: string | null): boolean {
  if (webURL !== null && name === "url") return true;
  for (const [key, value] of match.route.inject) {
    if (key === name) return "constant" in value || matchedSource(match, value.param) !== null;
  }
  return false;
}

/**
 * Params in the contract's order: path params in pattern order, declared query params and
 * defaults, other query params in order of appearance, injected params (in the place of a
 * param of the same name), the web `url`.
 */
function params(match: Match, webURL: string | null): JSONObject {
  const out = emptyObject();
  const { route, candidate, segments, query } = match;
  // Only an injected param or the web `url` can take a param's place.
  const replaced = route.inject.length > 0 || webURL !== null;
  const matchers = candidate.segments;
  for (let depth = 0; depth < matchers.length; depth++) {
    const m = matchers[depth];
    if (m.kind === "literal" || (replaced && overridden(match, m.name, webURL))) continue;
    const value = m.kind === "param" ? segments[depth] : segments.slice(depth).join("/");
    setMember(out, m.name, convert(value, m.type));
  }
  for (const d of route.queryDeclarations) {
    if (candidate.binds(d.name) || (replaced && overridden(match, d.name, webURL))) continue;
    const source = declaredSource(match, d);
    if (source !== null) setMember(out, d.name, read(match, source, d.type));
  }
  for (let i = 0; i < query.length; i++) {
    const key = query[i][0];
    if (candidate.binds(key) || declaration(route, key) !== null || (replaced && overridden(match, key, webURL))) continue;
    let repeated = false;
    for (let j = 0; j < i; j++) if (query[j][0] === key) { repeated = true; break; }
    if (!repeated) setMember(out, key, read(match, { query: key }, STRING));
  }
  for (const [key, value] of route.inject) {
    if ("constant" in value) {
      setMember(out, key, value.constant);
      continue;
    }
    const source = matchedSource(match, value.param);
    if (source !== null) setMember(out, key, read(match, source[0], source[1]));
  }
  if (webURL !== null) out.url = webURL;
  return out;
}

export type { Diagnostic };
export { ManifestError };
