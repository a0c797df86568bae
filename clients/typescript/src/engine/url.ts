// Classifying and normalizing a URL (the contract's §2 steps 1 and 2), on the string as
// given: every delimiter is ASCII, so string indices serve; decoded bytes are checked as
// UTF-8. No platform URL class: WHATWG's disagrees with the contract about hosts and
// decodes `%2F` in paths, and React Native has no complete one.

import { decodeUTF8, encodeUTF8, hasLoneSurrogate, lowercaseScalars, utf8Length } from "./utf8";

/** Why a URL was refused outright: the `reason` of a rejected result. */
export const Rejection = {
  tooLong: "longer than 8192 bytes",
  controlCharacter: "control character",
  whitespace: "whitespace",
  backslash: "backslash",
  invalidPercentEncoding: "invalid percent-encoding",
  invalidUTF8: "percent-decoded bytes are not UTF-8",
  userinfo: "userinfo in URL",
  unsafeScheme: "unsafe scheme",
  invalidHost: "invalid host",
  invalidPort: "invalid port",
  missingHost: "missing host",
  ambiguousSlashes: "three or more slashes before the host",
} as const;

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

export type HostKey = { key: string; error?: undefined } | { key?: undefined; error: string };

/**
 * A host's comparison key: lowercase, IDNA for non-ASCII, one `www.` and trailing dots
 * stripped, IPv6 literals bracketed, default ports dropped, other ports as numbers.
 */
export function hostKey(host: string, port: string | null, defaultPorts: number[] = ANY_WEB_PORTS): HostKey {
  const name = normalizedHostName(host);
  if (name === null) return { error: Rejection.invalidHost };
  if (port === null || port.length === 0) return { key: name };
  let value = 0;
  for (let i = 0; i < port.length; i++) {
    const d = port.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return { error: Rejection.invalidPort };
    value = value * 10 + d;
    if (value > 65535) return { error: Rejection.invalidPort };
  }
  return { key: defaultPorts.includes(value) ? name : name + ":" + value };
}

/** The key of a host as the manifest lists it (`artsy.net`, `localhost:8080`, `[::1]:8080`). */
export function listedHostKey(listed: string): HostKey {
  if (listed.charCodeAt(0) === 91) {
    const close = listed.indexOf("]");
    if (close < 0) return { error: Rejection.invalidHost };
    const rest = listed.slice(close + 1);
    if (rest.length === 0) return hostKey(listed.slice(0, close + 1), null);
    if (rest.charCodeAt(0) !== 58) return { error: Rejection.invalidHost };
    return hostKey(listed.slice(0, close + 1), rest.slice(1));
  }
  const colon = listed.indexOf(":");
  if (colon >= 0) return hostKey(listed.slice(0, colon), listed.slice(colon + 1));
  return hostKey(listed, null);
}

function isHostByte(c: number): boolean {
  // a-z 0-9 . _ ~ ! $ & ' * + , ; = -
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 126 || c === 33 || c === 36
    || c === 38 || c === 39 || c === 42 || c === 43 || c === 44 || c === 59 || c === 61 || c === 45;
}

function normalizedHostName(raw: string): string | null {
  if (raw.charCodeAt(0) === 91) {
    if (raw.length <= 2 || raw.charCodeAt(raw.length - 1) !== 93) return null;
    const lower = raw.toLowerCase();
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || c === 58 || c === 46 || c === 91 || c === 93)) return null;
    }
    return lower;
  }
  let name: string | null = raw;
  let ascii = true, upper = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x80) { ascii = false; break; }
    if (c >= 65 && c <= 90) upper = true;
  }
  name = !ascii ? toASCII(raw) : upper ? raw.toLowerCase() : raw;
  if (name === null) return null;
  let end = name.length;
  while (end > 0 && name.charCodeAt(end - 1) === 46) end--;
  if (end === 0) return null;
  name = name.slice(0, end);
  for (let i = 0; i < name.length; i++) if (!isHostByte(name.charCodeAt(i))) return null;
  if (name.length > 4 && name.startsWith("www.")) name = name.slice(4);
  return name;
}

/** A small IDNA ToASCII: full-width forms and ideographic full stops mapped, lowercased,
 * each non-ASCII label Punycode-encoded with `xn--`. */
function toASCII(raw: string): string | null {
  let mapped = "";
  for (const ch of raw) {
    const c = ch.codePointAt(0) as number;
    if (c === 0x3002 || c === 0xff0e || c === 0xff61) mapped += ".";
    else if (c >= 0xff01 && c <= 0xff5e) mapped += String.fromCodePoint(c - 0xfee0);
    else mapped += ch;
  }
  const labels = lowercaseScalars(mapped).split(".");
  const out: string[] = [];
  for (const label of labels) {
    const points = Array.from(label, (ch) => ch.codePointAt(0) as number);
    if (points.every((c) => c < 0x80)) {
      out.push(label);
      continue;
    }
    const encoded = punycode(points);
    if (encoded === null) return null;
    out.push("xn--" + encoded);
  }
  return out.join(".");
}

/** Punycode (RFC 3492) of one label's code points; null on overflow. */
function punycode(input: number[]): string | null {
  const base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, maxInt = 0x7fffffff;
  const digit = (d: number) => String.fromCharCode(d < 26 ? 97 + d : 22 + d);
  const adapt = (delta: number, numPoints: number, firstTime: boolean) => {
    delta = firstTime ? Math.floor(delta / damp) : Math.floor(delta / 2);
    delta += Math.floor(delta / numPoints);
    let k = 0;
    while (delta > ((base - tMin) * tMax) >> 1) {
      delta = Math.floor(delta / (base - tMin));
      k += base;
    }
    return k + Math.floor(((base - tMin + 1) * delta) / (delta + skew));
  };
  let output = "";
  for (const c of input) if (c < 0x80) output += String.fromCharCode(c);
  const basicCount = output.length;
  let handled = basicCount;
  if (basicCount > 0) output += "-";
  let n = 128, delta = 0, bias = 72;
  while (handled < input.length) {
    let m = Infinity;
    for (const c of input) if (c >= n && c < m) m = c;
    const product = (m - n) * (handled + 1);
    if (delta > maxInt - product) return null;
    delta += product;
    n = m;
    for (const c of input) {
      if (c < n) {
        delta++;
        if (delta > maxInt) return null;
      }
      if (c === n) {
        let q = delta;
        for (let k = base; ; k += base) {
          const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
          if (q < t) break;
          output += digit(t + ((q - t) % (base - t)));
          q = Math.floor((q - t) / (base - t));
        }
        output += digit(q);
        bias = adapt(delta, handled + 1, handled === basicCount);
        delta = 0;
        handled++;
      }
    }
    delta++;
    n++;
  }
  return output;
}

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
