// The manifest decoded as the server decodes it: the same fields, defaults, codes and
// messages, every problem collected with its JSON pointer; then the whole-table checks
// (validator.ts) on the routes that decoded.

import { isObject, JSONValue, kindOf, show, sortingKeys } from "./json.js";
import { listedHostKey } from "./host.js";
import { schemeEnd, unsafeSchemes } from "./url.js";
import { Diagnostic, Manifest, Route, Style } from "./manifest.js";
import { MAX_EXPANSIONS, MAX_ROUTES, get } from "./manifest-reader.js";
import { RouteDecoder } from "./route-decoder.js";
import { checkApps } from "./apps.js";

/** Decodes a parsed document; returns the manifest (null when unusable) and every diagnostic. */
export function decodeManifest(document: JSONValue): { manifest: Manifest | null; diagnostics: Diagnostic[] } {
  const decoder = new Decoder();
  const manifest = decoder.decode(document);
  return { manifest, diagnostics: decoder.diagnostics };
}

class Decoder extends RouteDecoder {
  decode(document: JSONValue): Manifest | null {
    if (!isObject(document)) {
      this.error("type-mismatch", "", `the manifest must be a JSON object, not ${kindOf(document)}`);
      return null;
    }
    this.checkKeys(document, "", ["version", "updatedAt", "hosts", "schemes", "caseSensitive", "fallback", "features", "messages", "apps", "routes", "$schema"]);
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
    // Checked, and left out: clients resolve without them.
    checkApps(this, get(document, "apps"));
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

