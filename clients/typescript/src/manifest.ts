// The manifest decoded as the server decodes it: the same fields, defaults, codes and
// messages, every problem collected with its JSON pointer. The server's whole-table
// checks (ambiguity, patterns that never win, redirect cycles) are not run again here: a
// manifest the server serves has passed them, and one bundled with an app should be a
// copy of what it served.

import { canonicalJSON, isObject, JSONObject, JSONValue, kindOf, show, sortingKeys, sortedKeys } from "./json";
import { PatternError, ParamType, RoutePattern, accepts, intValue, maxSafeInteger, STRING } from "./pattern";
import { RegexError, SafeRegex } from "./regex";
import { listedHostKey, schemeEnd, unsafeSchemes } from "./url";
import { utf8Compare } from "./utf8";
import { SemanticVersion, VersionRange } from "./version";

/** One problem in a manifest: its code, where (a JSON pointer) and what. */
export interface Diagnostic {
  severity: "error" | "warning";
  code: string;
  pointer: string;
  message: string;
}

/** A manifest the engine cannot use, with every problem found. */
export class ManifestError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.filter((d) => d.severity === "error").map((d) => `${d.pointer || "/"}: ${d.message} [${d.code}]`).join("\n"));
    this.name = "ManifestError";
  }
}

export type Style = "push" | "modal" | "sheet" | "replace" | "tab" | "web" | "external";
const STYLES: Style[] = ["push", "modal", "sheet", "replace", "tab", "web", "external"];

/** A style and the keys passed through (in key order). */
export interface Presentation {
  style: Style;
  options: [string, JSONValue][];
}

export interface ParamDeclaration {
  name: string;
  type: ParamType;
  required: boolean;
  defaultValue: JSONValue | undefined;
}

export interface Variant {
  platforms: string[] | null;
  idioms: string[] | null;
  appVersion: VersionRange | null;
  destination: string | null;
  presentation: Presentation | null;
}

export type Injected = { constant: JSONValue } | { param: string };

export interface Route {
  index: number;
  name: string;
  patterns: RoutePattern[];
  patternsAsList: boolean;
  hosts: string[] | null;
  hostsAsWritten: string[] | null;
  destination: string | null;
  presentation: Presentation;
  params: ParamDeclaration[];
  /** Declarations some candidate leaves to the query. */
  queryDeclarations: ParamDeclaration[];
  /** Those of them that can refuse a candidate: typed, or required without a default. */
  queryChecks: ParamDeclaration[];
  inject: [string, Injected][];
  variants: Variant[];
  since: SemanticVersion | null;
  until: SemanticVersion | null;
  sinceText: string | null;
  untilText: string | null;
  priority: number;
  universalLink: boolean;
  redirect: RoutePattern | null;
}

export interface Manifest {
  version: number;
  updatedAt: string | null;
  hosts: string[];
  hostKeys: string[];
  schemes: string[];
  caseSensitive: boolean;
  fallback: { destination: string; presentation: Presentation };
  features: JSONValue | undefined;
  messages: JSONValue | undefined;
  routes: Route[];
}

const PLATFORMS = ["ios", "android", "web"], IDIOMS = ["phone", "tablet"];
const MAX_ROUTES = 50000, MAX_EXPANSIONS = 300000;

function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function has(object: JSONObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function get(object: JSONObject, key: string): JSONValue | undefined {
  return has(object, key) ? object[key] : undefined;
}

/** Decodes a parsed document; returns the manifest (null when unusable) and every diagnostic. */
export function decodeManifest(document: JSONValue): { manifest: Manifest | null; diagnostics: Diagnostic[] } {
  const decoder = new Decoder();
  const manifest = decoder.decode(document);
  return { manifest, diagnostics: decoder.diagnostics };
}

class Decoder {
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

  decode(document: JSONValue): Manifest | null {
    if (!isObject(document)) {
      this.error("type-mismatch", "", `the manifest must be a JSON object, not ${kindOf(document)}`);
      return null;
    }
    this.checkKeys(document, "", ["version", "updatedAt", "hosts", "schemes", "caseSensitive", "fallback", "features", "messages", "routes", "$schema"]);
    let version = 1;
    const v = get(document, "version");
    if (v === undefined) this.error("missing-field", "/version", "\"version\" is required: an integer >= 1");
    else if (typeof v === "number" && Number.isInteger(v) && v >= 1) version = v;
    else this.error("invalid-value", "/version", `"version" must be an integer >= 1, not ${show(v)}`);
    let updatedAt: string | null = null;
    const u = get(document, "updatedAt");
    if (u !== undefined) {
      if (typeof u === "string" && isRFC3339(u)) updatedAt = u;
      else this.error("invalid-value", "/updatedAt", "\"updatedAt\" must be an RFC 3339 time such as \"2026-11-20T10:00:00Z\"");
    }
    const hosts = this.stringList(get(document, "hosts"), "/hosts") ?? [];
    hosts.forEach((host, i) => {
      const key = listedHostKey(host);
      if (key.key !== undefined) this.hostKeys.push(key.key);
      else this.error("invalid-host", `/hosts/${i}`, `"${host}" is not a valid host (${key.error})`);
    });
    const schemes = this.stringList(get(document, "schemes"), "/schemes") ?? [];
    schemes.forEach((scheme, i) => {
      const lower = scheme.toLowerCase();
      if (lower === "http" || lower === "https" || unsafeSchemes.includes(lower)) {
        this.error("invalid-scheme", `/schemes/${i}`, `"${scheme}" cannot be an app scheme: list web hosts under "hosts"; unsafe schemes are never followed`);
      } else if (schemeEnd(scheme + ":") !== scheme.length) {
        this.error("invalid-scheme", `/schemes/${i}`, `"${scheme}" is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')`);
      }
    });
    const caseSensitive = this.bool(get(document, "caseSensitive"), "/caseSensitive") ?? false;
    const fallback = this.decodeFallback(get(document, "fallback"));
    let routes: Route[] = [];
    const items = get(document, "routes");
    if (items === undefined) this.error("missing-field", "/routes", "\"routes\" is required: an array of routes");
    else if (!Array.isArray(items)) this.error("type-mismatch", "/routes", `"routes" must be an array, not ${kindOf(items)}`);
    else {
      if (items.length === 0) this.error("empty-routes", "/routes", "\"routes\" must hold at least one route");
      const expansions = expansionCount(items);
      if (items.length > MAX_ROUTES) this.error("too-many-routes", "/routes", `${items.length} routes; at most ${MAX_ROUTES} are accepted`);
      else if (expansions !== null) {
        this.error("too-many-expansions", "/routes", `the routes expand to ${expansions[0]} patterns (each optional group doubles a pattern's; /routes/${expansions[1]} has the most); at most ${MAX_EXPANSIONS} are accepted`);
      } else {
        items.forEach((item, i) => {
          const route = this.decodeRoute(item, i, `/routes/${i}`);
          if (route !== null) routes.push(route);
        });
      }
    }
    this.checkEchoShape(get(document, "features"), "/features", "value", true);
    this.checkEchoShape(get(document, "messages"), "/messages", "content", false);
    const features = get(document, "features"), messages = get(document, "messages");
    return {
      version, updatedAt, hosts, hostKeys: this.hostKeys, schemes: schemes.map((s) => s.toLowerCase()), caseSensitive, fallback,
      features: features === undefined ? undefined : sortingKeys(features),
      messages: messages === undefined ? undefined : sortingKeys(messages), routes,
    };
  }

  private checkEchoShape(value: JSONValue | undefined, pointer: string, member: string, isBoolean: boolean): void {
    if (value === undefined) return;
    const example = isBoolean ? "[{\"name\": \"ipad_vir\", \"value\": false}]" : "[{\"name\": \"LiveAuctionsCurrentWebSocketVersion\", \"content\": \"3\"}]";
    if (!Array.isArray(value)) {
      this.warning("echo-shape", pointer, `served as written, but Echo's clients read an array such as ${example}, not ${kindOf(value)}`);
      return;
    }
    value.forEach((item, i) => {
      const object = isObject(item) ? item : null;
      const content = object ? get(object, member) : undefined;
      const fits = object !== null && typeof get(object, "name") === "string" && (isBoolean ? typeof content === "boolean" : typeof content === "string");
      if (!fits) this.warning("echo-shape", `${pointer}/${i}`, `served as written, but Echo's clients read items such as ${example}`);
    });
  }

  private decodeFallback(value: JSONValue | undefined): Manifest["fallback"] {
    const standard = { destination: "WebView", presentation: { style: "web" as Style, options: [] } };
    if (value === undefined) return standard;
    if (!isObject(value)) {
      this.error("type-mismatch", "/fallback", "\"fallback\" must be an object such as {\"destination\": \"WebView\", \"presentation\": \"web\"}");
      return standard;
    }
    this.checkKeys(value, "/fallback", ["destination", "presentation"]);
    const destination = this.string(get(value, "destination"), "/fallback/destination") ?? "WebView";
    const p = get(value, "presentation");
    const presentation = (p === undefined ? null : this.decodePresentation(p, "/fallback/presentation")) ?? standard.presentation;
    return { destination, presentation };
  }

  decodePresentation(value: JSONValue, pointer: string): Presentation | null {
    const styleList = STYLES.join(", ");
    if (typeof value === "string") {
      if (!STYLES.includes(value as Style)) {
        this.error("unknown-style", pointer, `unknown presentation style "${value}"; use one of ${styleList}`);
        return null;
      }
      if (value === "tab") this.error("missing-tab", pointer, "style \"tab\" needs the tab to switch to: {\"style\": \"tab\", \"tab\": \"home\"}");
      return { style: value as Style, options: [] };
    }
    if (isObject(value)) {
      const style = get(value, "style");
      if (style === undefined) {
        this.error("missing-field", pointer + "/style", "a presentation object needs \"style\"");
        return null;
      }
      if (typeof style !== "string" || !STYLES.includes(style as Style)) {
        this.error("unknown-style", pointer + "/style", `unknown presentation style ${show(style)}; use one of ${styleList}`);
        return null;
      }
      if (style === "tab") {
        const tab = get(value, "tab");
        if (tab === undefined) this.error("missing-tab", pointer, "style \"tab\" needs \"tab\": the tab to switch to");
        else if (typeof tab !== "string" || tab.length === 0) this.error("invalid-value", pointer + "/tab", "\"tab\" must be a non-empty string");
      }
      const options: [string, JSONValue][] = sortedKeys(value).filter((k) => k !== "style").map((k) => [k, sortingKeys(value[k])]);
      return { style: style as Style, options };
    }
    this.error("type-mismatch", pointer, `a presentation is a style name or an object with "style", not ${kindOf(value)}`);
    return null;
  }

  private pattern(value: JSONValue, pointer: string): RoutePattern | null {
    if (typeof value !== "string") {
      this.error("type-mismatch", pointer, `a pattern is a string such as "/artwork/:id", not ${kindOf(value)}`);
      return null;
    }
    try {
      const parsed = RoutePattern.parse(value);
      if (value.length > 1 && value.endsWith("/")) {
        this.warning("trailing-slash", pointer, `"${value}": the trailing slash is ignored (URLs lose theirs too); write "${value.slice(0, -1)}"`);
      }
      return parsed;
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      this.error(e.code, pointer, `"${value}": ${e.message}`);
      return null;
    }
  }

  private version(value: JSONValue | undefined, pointer: string): SemanticVersion | null {
    if (value === undefined) return null;
    const v = typeof value === "string" ? SemanticVersion.parse(value) : null;
    if (v === null) this.error("invalid-version", pointer, `expected a semantic version such as "7.2.0", not ${show(value)}`);
    return v;
  }

  private decodeRoute(value: JSONValue, index: number, pointer: string): Route | null {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, `a route must be an object, not ${kindOf(value)}`);
      return null;
    }
    this.checkKeys(value, pointer, ["name", "pattern", "patterns", "hosts", "destination", "presentation", "params", "inject",
      "variants", "since", "until", "priority", "universalLink", "redirect", "description"]);
    const field = (key: string) => get(value, key);
    const name = this.string(field("name"), pointer + "/name");
    if (field("name") === undefined) this.error("missing-field", pointer + "/name", "every route needs a unique \"name\"");

    const patterns: RoutePattern[] = [];
    const single = field("pattern"), list = field("patterns");
    const asList = list !== undefined;
    if (single === undefined && list === undefined) {
      this.error("missing-field", pointer + "/pattern", "a route needs \"pattern\" (or \"patterns\" for aliases)");
    } else if (single !== undefined && list !== undefined) {
      this.error("conflicting-fields", pointer + "/patterns", "give \"pattern\" or \"patterns\", not both");
    } else if (single !== undefined) {
      const p = this.pattern(single, pointer + "/pattern");
      if (p) patterns.push(p);
    } else if (!Array.isArray(list) || list.length === 0) {
      this.error("type-mismatch", pointer + "/patterns", "\"patterns\" must be a non-empty array of patterns");
    } else {
      list.forEach((item, i) => {
        const p = this.pattern(item, `${pointer}/patterns/${i}`);
        if (p) patterns.push(p);
      });
    }

    let hosts: string[] | null = null;
    const hostsWritten = this.stringList(field("hosts"), pointer + "/hosts");
    if (hostsWritten !== null) {
      if (hostsWritten.length === 0) this.error("invalid-value", pointer + "/hosts", "\"hosts\" must not be empty; leave it out to apply to every host");
      const keys: string[] = [];
      hostsWritten.forEach((host, i) => {
        const key = listedHostKey(host).key;
        if (key === undefined || !this.hostKeys.includes(key)) {
          this.error("unknown-host", `${pointer}/hosts/${i}`, `"${host}" is not listed in the top-level "hosts"`);
        } else if (!keys.includes(key)) keys.push(key);
      });
      hosts = keys;
    }

    const redirectValue = field("redirect");
    const redirect = redirectValue === undefined ? null : this.pattern(redirectValue, pointer + "/redirect");
    const destination = this.string(field("destination"), pointer + "/destination");
    if (redirectValue !== undefined) {
      for (const key of ["destination", "presentation", "variants", "inject"]) {
        if (field(key) !== undefined) this.error("redirect-conflict", `${pointer}/${key}`, `a redirect route has no "${key}": the route it leads to decides`);
      }
    } else if (field("destination") === undefined) {
      this.error("missing-field", pointer + "/destination", "a route needs \"destination\" (the screen to open) or \"redirect\"");
    }
    const p = field("presentation");
    const presentation = (p === undefined ? null : this.decodePresentation(p, pointer + "/presentation")) ?? { style: "push" as Style, options: [] };

    const pathParams = patterns.flatMap((x) => x.paramNames);
    let params: ParamDeclaration[] = [];
    const declared = field("params");
    if (declared !== undefined) {
      let boundEverywhere = patterns.length > 0 ? [...patterns[0].requiredParamNames] : [];
      for (const other of patterns.slice(1)) boundEverywhere = boundEverywhere.filter((n) => other.requiredParamNames.includes(n));
      params = this.decodeParams(declared, pointer + "/params", boundEverywhere);
    }
    const known = [...pathParams, ...params.map((d) => d.name)];
    const inject = this.decodeInject(field("inject"), pointer + "/inject", known);
    const variants = this.decodeVariants(field("variants"), pointer + "/variants");
    const since = this.version(field("since"), pointer + "/since");
    const until = this.version(field("until"), pointer + "/until");
    if (since && until && since.compare(until) >= 0) {
      this.error("empty-range", pointer + "/until", `until ${until} is not after since ${since}: the route would exist for no version`);
    }
    let priority = 0;
    const pr = field("priority");
    if (pr !== undefined) {
      if (typeof pr === "number" && Number.isInteger(pr) && Math.abs(pr) <= 1000000) priority = pr;
      else this.error("invalid-value", pointer + "/priority", `"priority" must be an integer between -1000000 and 1000000, not ${show(pr)}`);
    }
    const universalLink = this.bool(field("universalLink"), pointer + "/universalLink") ?? true;
    if (redirect) {
      for (const n of redirect.paramNames) {
        if (!pathParams.includes(n)) this.error("unknown-param", pointer + "/redirect", `the redirect uses :${n}, which the route's pattern does not bind`);
      }
    }
    if (name === null || patterns.length === 0) return null;
    const queryDeclarations = params.filter((d) => !patterns.every((pt) => pt.expansions.every((e) => e.some((s) => s.kind !== "literal" && s.name === d.name))));
    const queryChecks = queryDeclarations.filter((d) => d.type.name !== "string" || (d.required && d.defaultValue === undefined));
    const sinceText = field("since"), untilText = field("until");
    return {
      index, name, patterns, patternsAsList: asList, hosts, hostsAsWritten: hostsWritten, destination, presentation, params,
      queryDeclarations, queryChecks, inject, variants, since, until,
      sinceText: typeof sinceText === "string" ? sinceText : null, untilText: typeof untilText === "string" ? untilText : null,
      priority, universalLink, redirect,
    };
  }

  private decodeParams(value: JSONValue, pointer: string, boundEverywhere: string[]): ParamDeclaration[] {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "\"params\" must be an object of param names to declarations");
      return [];
    }
    const out: ParamDeclaration[] = [];
    for (const name of sortedKeys(value)) {
      const d = this.decodeParam(name, value[name], `${pointer}/${pointerToken(name)}`, boundEverywhere.includes(name));
      if (d) out.push(d);
    }
    return out;
  }

  private decodeParam(name: string, value: JSONValue, pointer: string, requiredByDefault: boolean): ParamDeclaration | null {
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "a param declaration is an object such as {\"type\": \"int\"}");
      return null;
    }
    this.checkKeys(value, pointer, ["type", "values", "pattern", "required", "default", "description"]);
    let type: ParamType = STRING;
    const t = get(value, "type");
    if (t === undefined || t === "string") type = STRING;
    else if (t === "int" || t === "uuid" || t === "slug") type = { name: t };
    else if (t === "enum") {
      const items = get(value, "values");
      if (!Array.isArray(items) || items.length === 0 || !items.every((x) => typeof x === "string")) {
        this.error("invalid-param", pointer + "/values", "an enum param needs \"values\": a non-empty array of strings");
        return null;
      }
      type = { name: "enum", values: items as string[] };
    } else if (t === "regex") {
      const source = get(value, "pattern");
      if (typeof source !== "string" || source.length === 0) {
        this.error("invalid-param", pointer + "/pattern", "a regex param needs \"pattern\": the regex the whole value must match");
        return null;
      }
      try {
        type = { name: "regex", regex: new SafeRegex(source) };
      } catch (e) {
        if (!(e instanceof RegexError)) throw e;
        this.error(e.kind === "syntax" ? "invalid-regex" : "unsafe-regex", pointer + "/pattern", `"${source}": ${e.message}`);
        return null;
      }
    } else {
      this.error("unknown-type", pointer + "/type", `unknown param type ${show(t)}; use string, int, uuid, slug, enum or regex`);
      return null;
    }
    if (get(value, "values") !== undefined && type.name !== "enum") {
      this.warning("unknown-field", pointer + "/values", "\"values\" applies to enum params only");
    }
    const required = this.bool(get(value, "required"), pointer + "/required") ?? requiredByDefault;
    const d = get(value, "default");
    const defaultValue = d === undefined ? undefined : sortingKeys(d);
    if (defaultValue !== undefined && !defaultFits(defaultValue, type)) {
      this.error("invalid-default", pointer + "/default", `default ${show(defaultValue)} is not a valid ${describeType(type)}`);
    }
    return { name, type, required, defaultValue };
  }

  private decodeVariants(value: JSONValue | undefined, pointer: string): Variant[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.error("type-mismatch", pointer, "\"variants\" must be an array");
      return [];
    }
    const variants: Variant[] = [];
    value.forEach((item, i) => {
      const p = `${pointer}/${i}`;
      if (!isObject(item)) {
        this.error("type-mismatch", p, "a variant is an object with \"when\" and \"destination\" and/or \"presentation\"");
        return;
      }
      this.checkKeys(item, p, ["when", "destination", "presentation"]);
      const presentationValue = get(item, "presentation");
      const variant: Variant = {
        platforms: null, idioms: null, appVersion: null,
        destination: this.string(get(item, "destination"), p + "/destination"),
        presentation: presentationValue === undefined ? null : this.decodePresentation(presentationValue, p + "/presentation"),
      };
      if (get(item, "destination") === undefined && presentationValue === undefined) {
        this.error("invalid-variant", p, "a variant must override \"destination\" or \"presentation\"");
      }
      const when = get(item, "when");
      if (!isObject(when)) {
        this.error("missing-field", p + "/when", "a variant needs \"when\": {\"platform\", \"idiom\", \"appVersion\"}");
        return;
      }
      for (const key of Object.keys(when)) {
        const cp = `${p}/when/${pointerToken(key)}`;
        const condition = when[key];
        if (key === "platform") {
          variant.platforms = this.stringList(condition, cp, true);
          for (const v of variant.platforms ?? []) if (!PLATFORMS.includes(v)) this.error("invalid-value", cp, `unknown platform "${v}"; use ios, android or web`);
        } else if (key === "idiom") {
          variant.idioms = this.stringList(condition, cp, true);
          for (const v of variant.idioms ?? []) if (!IDIOMS.includes(v)) this.error("invalid-value", cp, `unknown idiom "${v}"; use phone or tablet`);
        } else if (key === "appVersion") {
          const range = typeof condition === "string" ? VersionRange.parse(condition) : null;
          if (range === null) {
            this.error("invalid-version", cp, `expected a range such as ">=7.2.0 <8.0.0", not ${show(condition)}`);
            continue;
          }
          if (range.isEmpty) this.error("empty-range", cp, `"${condition}" holds for no version`);
          variant.appVersion = range;
        } else {
          this.error("unknown-condition", cp, `unknown condition "${key}"; use platform, idiom or appVersion`);
        }
      }
      variants.push(variant);
    });
    return variants;
  }

  private decodeInject(value: JSONValue | undefined, pointer: string, known: string[]): [string, Injected][] {
    if (value === undefined) return [];
    if (!isObject(value)) {
      this.error("type-mismatch", pointer, "\"inject\" must be an object of param names to values");
      return [];
    }
    const out: [string, Injected][] = [];
    for (const key of sortedKeys(value)) {
      const member = value[key];
      if (isObject(member) && Object.keys(member).length === 1 && has(member, "param")) {
        const source = member.param;
        if (typeof source !== "string" || source.length === 0) {
          this.error("type-mismatch", `${pointer}/${pointerToken(key)}/param`, `{"param": name} copies the param called name: a non-empty string, not ${show(source)}`);
          continue;
        }
        if (!known.includes(source)) {
          this.warning("undeclared-param", `${pointer}/${pointerToken(key)}/param`, `"${source}" is neither in the pattern nor declared in "params": copied from the query when present; declare it to type-check it`);
        }
        out.push([key, { param: source }]);
      } else {
        out.push([key, { constant: sortingKeys(member) }]);
      }
    }
    return out;
  }
}

function describeType(type: ParamType): string {
  if (type.name === "enum") return `enum(${type.values.join("|")})`;
  if (type.name === "regex") return `regex(${type.regex.pattern})`;
  return type.name;
}

function defaultFits(value: JSONValue, type: ParamType): boolean {
  if (typeof value === "number" && type.name === "int") return Number.isInteger(value) && Math.abs(value) <= maxSafeInteger;
  if (typeof value === "string" && type.name === "int") return intValue(value) !== null;
  if (typeof value === "string") return accepts(type, value);
  return type.name === "string";
}

/** How many trie candidates the routes compile to, and the route with most; null under the cap. */
function expansionCount(routes: JSONValue[]): [number, number] | null {
  let total = 0, largest = 0, most = 0;
  const expansions = (v: JSONValue) => {
    if (typeof v !== "string") return 0;
    let groups = 0;
    for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) === 40) groups++;
    return 1 << Math.min(groups, 8);
  };
  routes.forEach((route, index) => {
    if (!isObject(route)) return;
    let count = 0, hosts = 1;
    for (const key of Object.keys(route)) {
      const v = route[key];
      if (key === "pattern" || key === "redirect") count += expansions(v);
      else if (key === "patterns" && Array.isArray(v)) for (const item of v) count += expansions(item);
      else if (key === "hosts") hosts = Math.max(1, Array.isArray(v) ? v.length : 1);
    }
    count *= hosts;
    total += count;
    if (count > most) { most = count; largest = index; }
  });
  return total > MAX_EXPANSIONS ? [total, largest] : null;
}

function isRFC3339(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (m === null) return false;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  const days = month === 2 ? ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > days) return false;
  if (Number(m[4]) >= 24 || Number(m[5]) >= 60 || Number(m[6]) >= 61) return false;
  return m[9] === undefined || (Number(m[9]) < 24 && Number(m[10]) < 60);
}

// MARK: - The canonical form

function presentationJSON(p: Presentation): string {
  const members: [string, string][] = [["style", JSON.stringify(p.style)], ...p.options.map(([k, v]) => [k, canonicalJSON(v)] as [string, string])];
  members.sort((a, b) => utf8Compare(a[0], b[0]));
  return "{" + members.map(([k, v]) => JSON.stringify(k) + ":" + v).join(",") + "}";
}

function stringsJSON(items: string[]): string {
  return "[" + items.map((s) => JSON.stringify(s)).join(",") + "]";
}

/** The manifest as `GET /v1/manifest` serves it: compact, defaults filled in, keys sorted. */
export function canonicalText(m: Manifest): string {
  let out = `{"caseSensitive":${m.caseSensitive},"fallback":{"destination":${JSON.stringify(m.fallback.destination)},"presentation":${presentationJSON(m.fallback.presentation)}}`;
  if (m.features !== undefined) out += `,"features":${canonicalJSON(m.features)}`;
  out += `,"hosts":${stringsJSON(m.hosts)}`;
  if (m.messages !== undefined) out += `,"messages":${canonicalJSON(m.messages)}`;
  out += `,"routes":[${m.routes.map(routeJSON).join(",")}],"schemes":${stringsJSON(m.schemes)}`;
  if (m.updatedAt !== null) out += `,"updatedAt":${JSON.stringify(m.updatedAt)}`;
  return out + `,"version":${m.version}}`;
}

function routeJSON(r: Route): string {
  const parts: string[] = [];
  if (r.destination !== null && r.redirect === null) parts.push(`"destination":${JSON.stringify(r.destination)}`);
  if (r.hostsAsWritten !== null) parts.push(`"hosts":${stringsJSON(r.hostsAsWritten)}`);
  if (r.inject.length > 0) {
    parts.push(`"inject":{${r.inject.map(([k, v]) => JSON.stringify(k) + ":" + ("param" in v ? `{"param":${JSON.stringify(v.param)}}` : canonicalJSON(v.constant))).join(",")}}`);
  }
  parts.push(`"name":${JSON.stringify(r.name)}`);
  if (r.params.length > 0) parts.push(`"params":{${r.params.map((d) => JSON.stringify(d.name) + ":" + paramJSON(d)).join(",")}}`);
  parts.push(r.patternsAsList ? `"patterns":${stringsJSON(r.patterns.map((p) => p.text))}` : `"pattern":${JSON.stringify(r.patterns[0].text)}`);
  if (r.redirect === null) parts.push(`"presentation":${presentationJSON(r.presentation)}`);
  parts.push(`"priority":${r.priority}`);
  if (r.redirect !== null) parts.push(`"redirect":${JSON.stringify(r.redirect.text)}`);
  if (r.sinceText !== null) parts.push(`"since":${JSON.stringify(r.sinceText)}`);
  parts.push(`"universalLink":${r.universalLink}`);
  if (r.untilText !== null) parts.push(`"until":${JSON.stringify(r.untilText)}`);
  if (r.variants.length > 0) parts.push(`"variants":[${r.variants.map(variantJSON).join(",")}]`);
  return "{" + parts.join(",") + "}";
}

function paramJSON(d: ParamDeclaration): string {
  let out = "{";
  if (d.defaultValue !== undefined) out += `"default":${canonicalJSON(d.defaultValue)},`;
  if (d.type.name === "regex") out += `"pattern":${JSON.stringify(d.type.regex.pattern)},`;
  out += `"required":${d.required},"type":${JSON.stringify(d.type.name)}`;
  if (d.type.name === "enum") out += `,"values":${stringsJSON(d.type.values)}`;
  return out + "}";
}

function variantJSON(v: Variant): string {
  let out = "{";
  if (v.destination !== null) out += `"destination":${JSON.stringify(v.destination)},`;
  if (v.presentation !== null) out += `"presentation":${presentationJSON(v.presentation)},`;
  const when: string[] = [];
  if (v.appVersion !== null) when.push(`"appVersion":${JSON.stringify(v.appVersion.toString())}`);
  if (v.idioms !== null) when.push(`"idiom":${stringsJSON(v.idioms)}`);
  if (v.platforms !== null) when.push(`"platform":${stringsJSON(v.platforms)}`);
  return out + `"when":{${when.join(",")}}}`;
}
