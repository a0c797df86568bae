// Classifying and normalizing a URL (docs/manifest.md, "Reading a URL"), on the string as
// given: every delimiter is ASCII, so string indices serve; decoded bytes are checked as
// UTF-8. No platform URL class: WHATWG's disagrees with the contract about hosts and
// decodes `%2F` in paths, and React Native has no complete one.

import { hostKey } from "./host.js";
import { Rejection } from "./rejection.js";

export { Rejection };
import { decodeUTF8, encodeUTF8, hasLoneSurrogate, utf8Length } from "./utf8.js";


export type Classified =
  | { kind: "internal"; host: string | null; segments: string[]; query: [string, string][]; fragment: string | null }
  | { kind: "external" }
  | { kind: "rejected"; reason: string };

export const maxURLLength = 8192;
export const unsafeSchemes = ["javascript", "data", "vbscript", "file"];

const EXTERNAL: Classified = { kind: "external" };

function rejected(reason: string): Classified {
  return { kind: "rejected", reason };
}

export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Whether `input` starts with `http`, in any case. */
function isHTTPPrefix(input: string): boolean {
  return (input.charCodeAt(0) | 0x20) === 104 && (input.charCodeAt(1) | 0x20) === 116 && (input.charCodeAt(2) | 0x20) === 116
    && (input.charCodeAt(3) | 0x20) === 112;
}

function isAlpha(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/** Unicode White_Space beyond ASCII and the C1 range, with U+FEFF and U+200B. */
function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029 || c === 0x202f
    || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The checks every input passes before it is classified; the reason, or null. */
export function screen(input: string): string | null {
  if (input.length > maxURLLength / 3 && utf8Length(input) > maxURLLength) return Rejection.tooLong;
  let nonASCII = false;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c > 0x20 && c < 0x7f && c !== 0x5c && c !== 0x25) continue;
    if (c < 0x20 || c === 0x7f) return Rejection.controlCharacter;
    if (c === 0x20) return Rejection.whitespace;
    if (c === 0x5c) return Rejection.backslash;
    if (c === 0x25) {
      if (i + 2 >= input.length || hexValue(input.charCodeAt(i + 1)) < 0 || hexValue(input.charCodeAt(i + 2)) < 0) {
        return Rejection.invalidPercentEncoding;
      }
    }
    if (c >= 0x80) nonASCII = true;
  }
  if (nonASCII) {
    if (hasLoneSurrogate(input)) return Rejection.invalidUTF8;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c < 0x80) continue;
      if (c <= 0x9f) return Rejection.controlCharacter;
      if (isUnicodeSpace(c)) return Rejection.whitespace;
    }
  }
  return null;
}

/** The index of the `:` ending an RFC 3986 scheme at the start of `input`, or -1. */
export function schemeEnd(input: string): number {
  if (input.length === 0 || !isAlpha(input.charCodeAt(0))) return -1;
  for (let i = 1; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === 58) return i;
    if (!(isAlpha(c) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) return -1;
  }
  return -1;
}

/** The URLs the app owns: its host keys and its lowercased schemes. */
export class URLScope {
  readonly hosts: Set<string>;
  readonly schemes: Set<string>;

  constructor(hosts: Iterable<string>, schemes: Iterable<string>) {
    this.hosts = new Set(hosts);
    this.schemes = new Set(Array.from(schemes, (s) => s.toLowerCase()));
  }

  classify(input: string): Classified {
    const problem = screen(input);
    if (problem !== null) return rejected(problem);
    const colon = schemeEnd(input);
    if (colon >= 0) {
      // http and https, the common case, recognized without making a string.
      const isHTTP = colon === 4 && isHTTPPrefix(input);
      if (isHTTP || (colon === 5 && isHTTPPrefix(input) && (input.charCodeAt(4) | 0x20) === 115)) {
        if (!input.startsWith("//", colon + 1)) return rejected(Rejection.missingHost);
        return this.authority(input, colon + 3, isHTTP ? HTTP_PORTS : HTTPS_PORTS, false);
      }
      const scheme = input.slice(0, colon).toLowerCase();
      if (unsafeSchemes.includes(scheme)) return rejected(Rejection.unsafeScheme);
      if (!this.schemes.has(scheme)) return EXTERNAL;
      let start = colon + 1;
      while (start < input.length && input.charCodeAt(start) === 47) start++;
      return parseInternal(input, null, start);
    }
    if (input.startsWith("//")) return this.authority(input, 2, ANY_WEB_PORTS, true);
    return parseInternal(input, null, 0);
  }

  private authority(input: string, start: number, defaultPorts: number[], schemeRelative: boolean): Classified {
    let end = start;
    while (end < input.length) {
      const c = input.charCodeAt(end);
      if (c === 47 || c === 63 || c === 35) break;
      end++;
    }
    if (end === start) {
      if (end < input.length && input.charCodeAt(end) === 47) return rejected(Rejection.ambiguousSlashes);
      return schemeRelative ? parseInternal(input, null, end) : rejected(Rejection.missingHost);
    }
    const at = input.indexOf("@", start);
    if (at >= 0 && at < end) return rejected(Rejection.userinfo);
    let searchFrom = start;
    if (input.charCodeAt(start) === 91) {
      const close = input.indexOf("]", start);
      searchFrom = close < 0 || close > end ? end : close;
    }
    let colon = input.indexOf(":", searchFrom);
    if (colon > end) colon = -1;
    const host = input.slice(start, colon < 0 ? end : colon);
    const port = colon < 0 ? null : input.slice(colon + 1, end);
    const key = hostKey(host, port, defaultPorts);
    if (key.error !== undefined) return rejected(key.error);
    if (!this.hosts.has(key.key)) return EXTERNAL;
    return parseInternal(input, key.key, end);
  }
}

const HTTP_PORTS = [80], HTTPS_PORTS = [443], ANY_WEB_PORTS = [80, 443];

/**
 * `input[start..<end]` decoded once (`+` as a space with `plusAsSpace`), or null when the
 * decoded bytes are not UTF-8. The input was screened: every `%` starts `%XX`.
 */
export function percentDecode(input: string, start: number, end: number, plusAsSpace: boolean): string | null {
  let special = false;
  for (let i = start; i < end; i++) {
    const c = input.charCodeAt(i);
    if (c === 37 || (plusAsSpace && c === 43)) { special = true; break; }
  }
  if (!special) return input.slice(start, end);
  const bytes: number[] = [];
  for (let i = start; i < end; i++) {
    const c = input.charCodeAt(i);
    if (c === 37 && i + 2 < end && hexValue(input.charCodeAt(i + 1)) >= 0 && hexValue(input.charCodeAt(i + 2)) >= 0) {
      bytes.push((hexValue(input.charCodeAt(i + 1)) << 4) | hexValue(input.charCodeAt(i + 2)));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(plusAsSpace && c === 43 ? 32 : c);
    } else {
      // A run of non-ASCII text up to the next ASCII byte, as its UTF-8.
      let j = i;
      while (j < end && input.charCodeAt(j) >= 0x80) j++;
      const encoded = encodeUTF8(input.slice(i, j));
      for (let k = 0; k < encoded.length; k++) bytes.push(encoded[k]);
      i = j - 1;
    }
  }
  return decodeUTF8(bytes);
}

/** 1 for `.`, 2 for `..` (`%2E` read as `.`), 0 otherwise. */
function dotSegmentKind(input: string, start: number, end: number): number {
  let dots = 0;
  let i = start;
  while (i < end) {
    const c = input.charCodeAt(i);
    if (c === 46) i++;
    else if (c === 37 && i + 2 < end && input.charCodeAt(i + 1) === 50 && (input.charCodeAt(i + 2) | 0x20) === 101) i += 3;
    else return 0;
    dots++;
    if (dots > 2) return 0;
  }
  return dots;
}

/** Splits what follows the authority into normalized segments, query items and fragment. */
function parseInternal(input: string, host: string | null, pathStart: number): Classified {
  // Most URLs have no `%`: their segments are their text, and only one starting with `.` can be a dot segment.
  const escaped = input.indexOf("%", pathStart) >= 0;
  let pathEnd = pathStart;
  while (pathEnd < input.length) {
    const c = input.charCodeAt(pathEnd);
    if (c === 63 || c === 35) break;
    pathEnd++;
  }
  let queryEnd = -1, fragmentStart = -1;
  if (pathEnd < input.length) {
    if (input.charCodeAt(pathEnd) === 63) {
      const hash = input.indexOf("#", pathEnd + 1);
      queryEnd = hash < 0 ? input.length : hash;
      if (hash >= 0) fragmentStart = hash + 1;
    } else {
      fragmentStart = pathEnd + 1;
    }
  }
  const segments = normalizedSegments(input, pathStart, pathEnd, escaped);
  if (segments === null) return rejected(Rejection.invalidUTF8);
  const query: [string, string][] = [];
  if (queryEnd >= 0) {
    let itemStart = pathEnd + 1;
    while (itemStart <= queryEnd) {
      let keyEnd = itemStart;
      while (keyEnd < queryEnd) {
        const c = input.charCodeAt(keyEnd);
        if (c === 38 || c === 61) break;
        keyEnd++;
      }
      const hasValue = keyEnd < queryEnd && input.charCodeAt(keyEnd) === 61;
      let itemEnd = keyEnd;
      if (hasValue) {
        const amp = input.indexOf("&", keyEnd + 1);
        itemEnd = amp < 0 || amp > queryEnd ? queryEnd : amp;
      }
      if (keyEnd > itemStart) {
        const key = percentDecode(input, itemStart, keyEnd, true);
        const value = hasValue ? percentDecode(input, keyEnd + 1, itemEnd, true) : "";
        if (key === null || value === null) return rejected(Rejection.invalidUTF8);
        query.push([key, value]);
      }
      itemStart = itemEnd + 1;
    }
  }
  let fragment: string | null = null;
  if (fragmentStart >= 0) {
    fragment = percentDecode(input, fragmentStart, input.length, false);
    if (fragment === null) return rejected(Rejection.invalidUTF8);
  }
  return { kind: "internal", host, segments, query, fragment };
}

/**
 * RFC 3986 5.2.4 dot-segment removal on raw segments (`%2E` reads as `.`), each kept
 * segment decoded once, empty ones dropped at the end (`..` removes an empty one too, as
 * in the RFC). Null when a decoded segment is not UTF-8.
 */
function normalizedSegments(input: string, start: number, end: number, escaped: boolean): string[] | null {
  const segments: string[] = [];
  let empties = 0;
  if (start < end && input.charCodeAt(start) === 47) start++;
  while (start <= end) {
    let stop = input.indexOf("/", start);
    if (stop < 0 || stop > end) stop = end;
    const first = input.charCodeAt(start);
    const kind = start < stop && (first === 46 || first === 37) ? dotSegmentKind(input, start, stop) : 0;
    if (kind === 2) {
      if (segments.length > 0) {
        if (segments[segments.length - 1].length === 0) empties--;
        segments.pop();
      }
    } else if (kind === 0) {
      const decoded = escaped ? percentDecode(input, start, stop, false) : input.slice(start, stop);
      if (decoded === null) return null;
      if (start === stop) empties++;
      segments.push(decoded);
    }
    start = stop + 1;
  }
  return empties > 0 ? segments.filter((s) => s.length > 0) : segments;
}
