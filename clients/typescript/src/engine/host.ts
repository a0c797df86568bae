// Hosts as the server compares them (docs/manifest.md, "Hosts, ports and schemes"): lowercase, IDNA (a small ToASCII with
// Punycode) for non-ASCII names, one `www.` and trailing dots stripped, IPv6 literals
// bracketed, default ports dropped.

import { Rejection } from "./rejection.js";
import { lowercaseScalars } from "./utf8.js";

const ANY_WEB_PORTS = [80, 443];

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
