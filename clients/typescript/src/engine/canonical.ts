// The canonical form: the manifest as `GET /v1/manifest` serves it, whose SHA-256 is its ETag.

import { jsonString } from "./json-text.js";
import { canonicalJSON } from "./json.js";
import { utf8Compare } from "./utf8.js";
import { Manifest, ParamDeclaration, Presentation, Route, Variant } from "./manifest.js";


function presentationJSON(p: Presentation): string {
  const members: [string, string][] = [["style", jsonString(p.style)], ...p.options.map(([k, v]) => [k, canonicalJSON(v)] as [string, string])];
  members.sort((a, b) => utf8Compare(a[0], b[0]));
  return "{" + members.map(([k, v]) => jsonString(k) + ":" + v).join(",") + "}";
}

function stringsJSON(items: string[]): string {
  return "[" + items.map((s) => jsonString(s)).join(",") + "]";
}

/** The manifest as `GET /v1/manifest` serves it: compact, defaults filled in, keys sorted. */
export function canonicalText(m: Manifest): string {
  let out = `{"caseSensitive":${m.caseSensitive},"fallback":{"destination":${jsonString(m.fallback.destination)},"presentation":${presentationJSON(m.fallback.presentation)}}`;
  if (m.features !== undefined) out += `,"features":${canonicalJSON(m.features)}`;
  out += `,"hosts":${stringsJSON(m.hosts)}`;
  if (m.messages !== undefined) out += `,"messages":${canonicalJSON(m.messages)}`;
  out += `,"routes":[${m.routes.map(routeJSON).join(",")}],"schemes":${stringsJSON(m.schemes)}`;
  if (m.updatedAt !== null) out += `,"updatedAt":${jsonString(m.updatedAt)}`;
  return out + `,"version":${m.version}}`;
}

function routeJSON(r: Route): string {
  const parts: string[] = [];
  if (r.destination !== null && r.redirect === null) parts.push(`"destination":${jsonString(r.destination)}`);
  if (r.hostsAsWritten !== null) parts.push(`"hosts":${stringsJSON(r.hostsAsWritten)}`);
  if (r.inject.length > 0) {
    parts.push(`"inject":{${r.inject.map(([k, v]) => jsonString(k) + ":" + ("param" in v ? `{"param":${jsonString(v.param)}}` : canonicalJSON(v.constant))).join(",")}}`);
  }
  parts.push(`"name":${jsonString(r.name)}`);
  if (r.params.length > 0) parts.push(`"params":{${r.params.map((d) => jsonString(d.name) + ":" + paramJSON(d)).join(",")}}`);
  parts.push(r.patternsAsList ? `"patterns":${stringsJSON(r.patterns.map((p) => p.text))}` : `"pattern":${jsonString(r.patterns[0].text)}`);
  if (r.redirect === null) parts.push(`"presentation":${presentationJSON(r.presentation)}`);
  parts.push(`"priority":${r.priority}`);
  if (r.redirect !== null) parts.push(`"redirect":${jsonString(r.redirect.text)}`);
  if (r.sinceText !== null) parts.push(`"since":${jsonString(r.sinceText)}`);
  parts.push(`"universalLink":${r.universalLink}`);
  if (r.untilText !== null) parts.push(`"until":${jsonString(r.untilText)}`);
  if (r.variants.length > 0) parts.push(`"variants":[${r.variants.map(variantJSON).join(",")}]`);
  return "{" + parts.join(",") + "}";
}

function paramJSON(d: ParamDeclaration): string {
  let out = "{";
  if (d.defaultValue !== undefined) out += `"default":${canonicalJSON(d.defaultValue)},`;
  if (d.type.name === "regex") out += `"pattern":${jsonString(d.type.regex.pattern)},`;
  out += `"required":${d.required},"type":${jsonString(d.type.name)}`;
  if (d.type.name === "enum") out += `,"values":${stringsJSON(d.type.values)}`;
  return out + "}";
}

function variantJSON(v: Variant): string {
  let out = "{";
  if (v.destination !== null) out += `"destination":${jsonString(v.destination)},`;
  if (v.presentation !== null) out += `"presentation":${presentationJSON(v.presentation)},`;
  const when: string[] = [];
  if (v.appVersion !== null) when.push(`"appVersion":${jsonString(v.appVersion.toString())}`);
  if (v.idioms !== null) when.push(`"idiom":${stringsJSON(v.idioms)}`);
  if (v.platforms !== null) when.push(`"platform":${stringsJSON(v.platforms)}`);
  return out + `"when":{${when.join(",")}}}`;
}

