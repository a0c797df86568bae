// Route patterns (`/artist/:id(/:tab)`, `/(app/):object/:id`, `/*rest`) and param types.

import { SafeRegex } from "./regex.js";
import { hexValue, percentDecode } from "./url.js";

export type PatternSegment =
  | { kind: "literal"; text: string }
  | { kind: "param"; name: string }
  | { kind: "wildcard"; name: string };

type Part = { segment: PatternSegment } | { group: PatternSegment[] };

/** Why a pattern could not be parsed, with the server's code and wording. */
export class PatternError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

const MAX_GROUPS = 8, MAX_LENGTH = 2048;

const invalid = (message: string) => new PatternError("invalid-pattern", message);
const nested = () => new PatternError("nested-optional", "optional groups may not nest");
const unbalanced = () => invalid("unbalanced parenthesis");
const emptyGroup = () => invalid("optional group is empty");
const emptySegment = () => invalid("pattern has an empty segment ('//'), which no URL can match");
const groupForm = () => invalid("an optional group holds whole segments: '(/seg...)' after a segment, as in '/artist/:id(/:tab)', or '(seg/...)' right after a '/', as in '/(app/):object'");

/** A parsed pattern and the segment lists of its expansions (one per subset of its optional groups). */
export class RoutePattern {
  readonly expansions: PatternSegment[][];
  readonly paramNames: string[];
  /** Params outside optional groups: bound by every expansion. */
  readonly requiredParamNames: string[];

  /** Per expansion, the optional groups it keeps (numbered from 0), for diagnostics. */
  get keptGroups(): number[][] {
    return subsets(this.optionalGroupCount);
  }

  private constructor(readonly text: string, parts: Part[], flat: PatternSegment[], readonly optionalGroupCount: number) {
    const groups = optionalGroupCount;
    this.expansions = groups === 0 ? [flat] : expansionsOf(parts, groups);
    this.paramNames = flat.filter((s) => s.kind !== "literal").map((s) => (s as { name: string }).name);
    this.requiredParamNames = [];
    for (const part of parts) {
      if ("segment" in part && part.segment.kind !== "literal") this.requiredParamNames.push(part.segment.name);
    }
  }

  /** Parses a pattern; throws the first problem as a PatternError. */
  static parse(text: string): RoutePattern {
    if (text.length === 0) throw invalid("pattern is empty");
    if (text.length > MAX_LENGTH / 3 && new TextLength(text).bytes > MAX_LENGTH) throw invalid(`pattern is longer than ${MAX_LENGTH} bytes`);
    if (text.charCodeAt(0) !== 47) throw invalid("pattern must start with '/'");
    for (let k = 0; k < text.length; k++) {
      const b = text.charCodeAt(k);
      if (b < 0x20 || b === 0x7f || b === 0x20 || b === 0x3f || b === 0x23 || b === 0x5c) {
        const shown = b < 0x20 || b === 0x20 ? "U+" + b.toString(16).toUpperCase() : `'${text[k]}'`;
        throw invalid(`character ${shown} is not allowed in a pattern`);
      }
      if (b >= 0x80 && b <= 0x9f) throw invalid(`character '${text[k]}' is not allowed in a pattern`);
    }
    const parts: Part[] = [];
    const flat: PatternSegment[] = [];
    let group: PatternSegment[] | null = null;
    let groupAfterSlash = false;
    let groups = 0;
    let afterSlash = true;
    let i = 1;
    let wildcardNotLast = false;
    let duplicate: string | null = null;
    const n = text.length;
    const at = (k: number) => (k < n ? text.charCodeAt(k) : -1);
    while (i < n) {
      const b = at(i);
      if (afterSlash) {
        if (b === 40) {
          if (group !== null) throw nested();
          if (i + 1 >= n || at(i + 1) === 41) throw emptyGroup();
          if (at(i + 1) === 47 || at(i + 1) === 40) throw at(i + 1) === 40 ? nested() : emptySegment();
          group = [];
          groupAfterSlash = true;
          groups++;
          i++;
        } else if (b === 41) {
          if (group === null) throw unbalanced();
          if (!groupAfterSlash) throw group.length === 0 ? emptyGroup() : groupForm();
          parts.push({ group });
          group = null;
          i++;
        } else if (b === 47) {
          throw emptySegment();
        } else {
          let end = i;
          while (end < n && at(end) !== 47 && at(end) !== 40 && at(end) !== 41) end++;
          const segment = parseSegment(text, i, end);
          if (segment.kind !== "literal" && duplicate === null && flat.some((s) => s.kind !== "literal" && s.name === segment.name)) {
            duplicate = segment.name;
          }
          if (flat.length > 0 && flat[flat.length - 1].kind === "wildcard") wildcardNotLast = true;
          flat.push(segment);
          if (group !== null) group.push(segment);
          else parts.push({ segment });
          if (group !== null && groupAfterSlash && (end === n || at(end) !== 47)) throw groupForm();
          i = end;
          afterSlash = false;
        }
      } else {
        if (b === 47) {
          i++;
          afterSlash = true;
          if (i === n && group !== null) throw unbalanced();
        } else if (b === 40) {
          if (group !== null) throw nested();
          if (!(i + 1 < n && at(i + 1) === 47)) {
            if (i + 1 < n && at(i + 1) === 40) throw nested();
            throw i + 1 < n && at(i + 1) === 41 ? emptyGroup() : groupForm();
          }
          group = [];
          groupAfterSlash = false;
          groups++;
          i += 2;
          afterSlash = true;
        } else if (b === 41) {
          if (group === null || groupAfterSlash) throw group === null ? unbalanced() : groupForm();
          parts.push({ group });
          group = null;
          i++;
          if (i < n && at(i) !== 47 && at(i) !== 40) throw invalid("an optional group must be followed by '/', '(' or the end of the pattern");
        } else {
          throw unbalanced();
        }
      }
    }
    if (group !== null) throw unbalanced();
    if (groups > MAX_GROUPS) throw new PatternError("too-many-optionals", `${groups} optional groups; at most ${MAX_GROUPS} are allowed`);
    if (wildcardNotLast) throw new PatternError("wildcard-not-last", "a wildcard must be the last segment");
    if (duplicate !== null) throw new PatternError("duplicate-param", `param '${duplicate}' appears twice in the pattern`);
    return new RoutePattern(text, parts, flat, groups);
  }
}

class TextLength {
  readonly bytes: number;
  constructor(text: string) {
    let n = 0;
    for (const ch of text) {
      const c = ch.codePointAt(0) as number;
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    this.bytes = n;
  }
}

function isParamName(name: string): boolean {
  if (name.length === 0) return false;
  const first = name.charCodeAt(0);
  if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95)) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45)) return false;
  }
  return true;
}

function parseSegment(text: string, start: number, end: number): PatternSegment {
  const first = text.charCodeAt(start);
  if (first === 58 || first === 42) {
    if (first === 42 && end - start === 1) return { kind: "wildcard", name: "*" };
    const name = text.slice(start + 1, end);
    if (!isParamName(name)) {
      throw invalid(`invalid param name '${name}': use letters, digits, '_' or '-', starting with a letter or '_'`);
    }
    return first === 58 ? { kind: "param", name } : { kind: "wildcard", name };
  }
  let pending = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (pending > 0) {
      if (hexValue(c) < 0) throw invalid("invalid percent-encoding in a literal");
      pending--;
    } else if (c === 37) pending = 2;
  }
  const decoded = pending === 0 ? percentDecode(text, start, end, false) : null;
  if (decoded === null) throw invalid("invalid percent-encoding in a literal");
  return { kind: "literal", text: decoded };
}

/** The subsets of `0..<count` in expansion order: a list before its own prefixes. */
function subsets(count: number): number[][] {
  const out: number[][] = [];
  const visit = (kept: number[], next: number) => {
    for (let g = next; g < count; g++) visit([...kept, g], g + 1);
    out.push(kept);
  };
  visit([], 0);
  return out;
}

function expansionsOf(parts: Part[], groups: number): PatternSegment[][] {
  return subsets(groups).map((kept) => {
    const segments: PatternSegment[] = [];
    let g = 0;
    for (const part of parts) {
      if ("segment" in part) segments.push(part.segment);
      else {
        if (kept.includes(g)) segments.push(...part.group);
        g++;
      }
    }
    return segments;
  });
}

// MARK: - Param types

export type ParamType =
  | { name: "string" }
  | { name: "int" }
  | { name: "uuid" }
  | { name: "slug" }
  | { name: "enum"; values: string[] }
  | { name: "regex"; regex: SafeRegex };

export const STRING: ParamType = { name: "string" };

export const maxSafeInteger = 9007199254740991;

/** The value of an `int` param (`-?[0-9]+` within ±(2^53−1)), or null. */
export function intValue(text: string): number | null {
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  if (text.length <= start) return null;
  let value = 0;
  for (let i = start; i < text.length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    value = value * 10 + d;
    if (value > maxSafeInteger) return null;
  }
  return negative ? -value : value;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isUUID(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 45 : !isHex(c)) return false;
  }
  return true;
}

export function isSlugCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
}

function isSlug(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isSlugCode(text.charCodeAt(i))) return false;
  return true;
}

/** Whether `value` is of `type`. */
export function accepts(type: ParamType, value: string): boolean {
  switch (type.name) {
    case "string": return true;
    case "int": return intValue(value) !== null;
    case "uuid": return isUUID(value);
    case "slug": return isSlug(value);
    case "enum": return type.values.includes(value);
    case "regex": return type.regex.matches(value);
  }
}

export function isTyped(type: ParamType): boolean {
  return type.name !== "string";
}

/** Two param types alike: the same name, and the same values or regex. */
export function sameType(a: ParamType, b: ParamType): boolean {
  if (a.name !== b.name) return false;
  if (a.name === "enum" && b.name === "enum") return a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]);
  if (a.name === "regex" && b.name === "regex") return a.regex.pattern === b.regex.pattern;
  return true;
}

/** Whether no value is of both types (so two routes that differ only there never compete). */
export function isDisjoint(a: ParamType, b: ParamType): boolean {
  if (a.name === "string" || b.name === "string" || a.name === "regex" || b.name === "regex") return false;
  if (a.name === "enum" && b.name === "enum") return !a.values.some((v) => b.values.includes(v));
  if (a.name === "enum") return !a.values.some((v) => accepts(b, v));
  if (b.name === "enum") return !b.values.some((v) => accepts(a, v));
  return (a.name === "int" && b.name === "uuid") || (a.name === "uuid" && b.name === "int");
}

/** Whether every value of `other` is a value of `type`. */
export function covers(type: ParamType, other: ParamType): boolean {
  if (type.name === "string") return true;
  if (type.name === "enum" && other.name === "enum") return other.values.every((v) => type.values.includes(v));
  if (other.name === "enum") return other.values.every((v) => accepts(type, v));
  if (type.name === "slug" && (other.name === "uuid" || other.name === "int")) return true;
  return sameType(type, other);
}

/** An expansion written back as a pattern (`/artist/:id/*rest`), literals escaped as the server writes them. */
export function expansionText(expansion: PatternSegment[]): string {
  return "/" + expansion.map((s) => {
    if (s.kind === "param") return ":" + s.name;
    if (s.kind === "wildcard") return s.name === "*" ? "*" : "*" + s.name;
    return s.text.replace(/[/%()?#]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  }).join("/");
}
