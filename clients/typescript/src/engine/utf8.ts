// UTF-8 on JavaScript strings, without TextEncoder or Buffer (React Native's Hermes
// lacks one or the other depending on its version).

/** Bytes of `text` in UTF-8; a lone surrogate counts as U+FFFD (3 bytes). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** `text` as UTF-8 bytes; a lone surrogate becomes U+FFFD. */
export function encodeUTF8(text: string): Uint8Array {
  const out = new Uint8Array(utf8Length(text));
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[k++] = c;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
        c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00);
        i++;
      } else c = 0xfffd;
    }
    if (c < 0x800) {
      out[k++] = 0xc0 | (c >> 6);
      out[k++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      out[k++] = 0xe0 | (c >> 12);
      out[k++] = 0x80 | ((c >> 6) & 0x3f);
      out[k++] = 0x80 | (c & 0x3f);
    } else {
      out[k++] = 0xf0 | (c >> 18);
      out[k++] = 0x80 | ((c >> 12) & 0x3f);
      out[k++] = 0x80 | ((c >> 6) & 0x3f);
      out[k++] = 0x80 | (c & 0x3f);
    }
  }
  return out;
}

/**
 * `bytes[start..<end]` as a string when they are UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), else null. The UTF-16 code units are gathered
 * and turned into a string a chunk at a time (one concatenation per character made a
 * 2,000-byte value cost a hundred microseconds).
 */
export function decodeUTF8(bytes: ArrayLike<number>, start = 0, end = bytes.length): string | null {
  const units: number[] = [];
  let i = start;
  while (i < end) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      units.push(b0);
      i++;
      continue;
    }
    let count: number, minimum: number, scalar: number;
    if (b0 >= 0xc2 && b0 <= 0xdf) { count = 2; minimum = 0x80; scalar = b0 & 0x1f; }
    else if (b0 >= 0xe0 && b0 <= 0xef) { count = 3; minimum = 0x800; scalar = b0 & 0x0f; }
    else if (b0 >= 0xf0 && b0 <= 0xf4) { count = 4; minimum = 0x10000; scalar = b0 & 0x07; }
    else return null;
    if (end - i < count) return null;
    for (let k = 1; k < count; k++) {
      const b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) return null;
      scalar = (scalar << 6) | (b & 0x3f);
    }
    if (scalar < minimum || scalar > 0x10ffff || (scalar >= 0xd800 && scalar <= 0xdfff)) return null;
    if (scalar < 0x10000) units.push(scalar);
    else units.push(0xd800 + ((scalar - 0x10000) >> 10), 0xdc00 + ((scalar - 0x10000) & 0x3ff));
    i += count;
  }
  let out = "";
  for (let k = 0; k < units.length; k += 4096) out += String.fromCharCode.apply(null, units.slice(k, k + 4096));
  return out;
}

/** Whether `text` holds a surrogate without its pair (no UTF-8 can spell it). */
export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) i++;
      else return true;
    }
  }
  return false;
}

/** `text` with each lone surrogate replaced by U+FFFD, as a server reading its bytes sees it. */
export function wellFormed(text: string): string {
  if (!hasLoneSurrogate(text)) return text;
  return decodeUTF8(encodeUTF8(text)) as string;
}

/** Orders strings by their UTF-8 bytes (the canonical manifest's key order). */
export function utf8Compare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 orders U+E000..U+FFFF after surrogates; UTF-8 (code points) before.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Lowercased one code point at a time, as Swift's `String.lowercased()` maps each scalar.
 * `toLowerCase` agrees but for its one rule that looks at context (a capital sigma ending
 * a word becomes `ς`), so text with a `Σ` is lowered a code point at a time.
 */
export function lowercaseScalars(text: string): string {
  if (text.indexOf("\u03a3") < 0) return text.toLowerCase();
  let out = "";
  for (const ch of text) out += ch.toLowerCase();
  return out;
}
