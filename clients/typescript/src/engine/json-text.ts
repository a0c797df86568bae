// JSON text written by the package itself, as JSON.stringify writes it on an engine that
// follows ECMAScript to the letter: numbers as Number::toString spells them (the shortest
// digits that read back as the same double), strings escaped as JSON.stringify escapes
// them (lone surrogates as `\udxxx`). Not every engine does: QuickJS spells
// 123456789012345678901 as 123456789012345670000 where V8 and the server write
// 123456789012345680000. The canonical manifest (its ETag) and `resultJSON` are written
// here, so they are the same bytes on every engine.

/** A JSON value as the manifest holds it (declared here, where it is written, and exported again by json.ts). */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };
export type JSONObject = { [key: string]: JSONValue };

const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `text` as a JSON string literal. */
export function jsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return '"' + text + '"';
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20) out += "\\u" + c.toString(16).padStart(4, "0");
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) {
      out += text[i] + text[i + 1];
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += "\\u" + c.toString(16);
    else out += text[i];
  }
  return out + '"';
}

/** `value` as compact JSON: members in the object's own order, numbers as ECMAScript spells them. */
export function jsonText(value: JSONValue | undefined): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string": return jsonString(value);
    case "number": return Number.isFinite(value) ? numberText(value) : "null";
    case "boolean": return value ? "true" : "false";
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + (value[i] === undefined ? "null" : jsonText(value[i]));
    return out + "]";
  }
  let out = "{", first = true;
  const object = value as { [key: string]: JSONValue | undefined };
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member === undefined) continue;
    out += (first ? "" : ",") + jsonString(key) + ":" + jsonText(member);
    first = false;
  }
  return out + "}";
}

const TWO_53 = 9007199254740992;

/** Number::toString(10) of a finite number (ECMAScript 2024, 6.1.6.1.20). */
export function numberText(x: number): string {
  if (x === 0) return "0";
  if (x < 0) return "-" + numberText(-x);
  // Integers every engine prints exactly; the rest needs the shortest digits.
  if (x < TWO_53 && Math.floor(x) === x) return String(x);
  const [digits, n] = shortestDigits(x);
  const k = digits.length;
  if (k <= n && n <= 21) return digits + "0".repeat(n - k);
  if (0 < n && n <= 21) return digits.slice(0, n) + "." + digits.slice(n);
  if (-6 < n && n <= 0) return "0." + "0".repeat(-n) + digits;
  const exponent = n - 1 >= 0 ? "+" + (n - 1) : String(n - 1);
  return (k === 1 ? digits : digits[0] + "." + digits.slice(1)) + "e" + exponent;
}

/**
 * The fewest decimal digits `s` and the exponent `n` with `s × 10^(n − k)` reading back as `x`
 * (of `k` digits, the closest to `x`, the even one of two), found exactly with BigInt:
 * `x` lies in an interval of reals that round to it, and each length of digits from 1 up is
 * tried against it.
 */
function shortestDigits(x: number): [string, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const fraction = (BigInt(hi & 0xfffff) << BigInt(32)) + BigInt(lo);
  const mantissa = biased === 0 ? fraction : fraction + (BigInt(1) << BigInt(52));
  const e2 = (biased === 0 ? 1 : biased) - 1075;
  // x = mantissa × 2^e2. The reals that round to x lie between the midpoints to its
  // neighbours; the one below is nearer when x is a power of two (the gap below is half
  // the gap above). Times `scale`, x (`numerator`) and both gaps are integers.
  const two = BigInt(2), four = BigInt(4);
  let numerator: bigint, half: bigint, scale: bigint;
  if (e2 >= 0) {
    const power = BigInt(1) << BigInt(e2);
    numerator = mantissa * power * four;
    half = power * two;
    scale = four;
  } else {
    numerator = mantissa * four;
    half = two;
    scale = BigInt(1) << BigInt(2 - e2);
  }
  const lowerGap = fraction === BigInt(0) && biased > 1 ? half / two : half;
  const low = numerator - lowerGap, high = numerator + half;
  const inclusive = mantissa % two === BigInt(0);
  // n: 10^(n-1) <= x < 10^n, from the logarithm and corrected exactly.
  let n = Math.floor(Math.log10(x)) + 1;
  const ten = BigInt(10);
  const pow10 = (p: number) => ten ** BigInt(p);
  // compare(a × 10^p, b / scale): the sign of a × 10^p × scale − b.
  const compare = (a: bigint, p: number, b: bigint) => {
    const left = p >= 0 ? a * pow10(p) * scale : a * scale, right = p >= 0 ? b : b * pow10(-p);
    return left < right ? -1 : left > right ? 1 : 0;
  };
  while (compare(BigInt(1), n - 1, numerator) > 0) n--;
  while (compare(BigInt(1), n, numerator) <= 0) n++;
  const inside = (s: bigint, p: number) => {
    const below = compare(s, p, low), above = compare(s, p, high);
    return (inclusive ? below >= 0 : below > 0) && (inclusive ? above <= 0 : above < 0);
  };
  for (let k = 1; k <= 17; k++) {
    const p = n - k;
    // floor(x / 10^p), and whether it was exact.
    const num = p >= 0 ? numerator : numerator * pow10(-p), den = p >= 0 ? scale * pow10(p) : scale;
    const floor = num / den, remainder = num % den;
    const candidates = remainder === BigInt(0) ? [floor] : [floor, floor + BigInt(1)];
    let best: bigint | null = null, bestDistance = BigInt(0);
    for (const s of candidates) {
      if (s === BigInt(0) || !inside(s, p)) continue;
      const distance = (s * den > num ? s * den - num : num - s * den);
      if (best === null || distance < bestDistance || (distance === bestDistance && s % BigInt(2) === BigInt(0))) {
        best = s;
        bestDistance = distance;
      }
    }
    if (best === null) continue;
    let digits = best.toString();
    let exponent = n;
    if (digits.length > k) exponent++;  // rounded up to 10^k: one more place
    digits = digits.replace(/0+$/, "");
    return [digits, exponent];
  }
  // Unreachable: 17 digits always read back.
  return [String(x), n];
}

// MARK: Reading

/**
 * A number token whose double some engines' JSON.parse rounds wrongly: more than 15
 * significant digits, or a decimal exponent past ±22 (within both, the double is exact
 * arithmetic on exact values, which every engine gets right). QuickJS reads
 * 123456789012345678901 one unit in the last place low.
 */
const MAYBE_HARD = /\d{16}|\d[eE][+-]?\d|\.\d*\d{16}/;
const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Marks a number token held as a string while JSON.parse reads the rest. */
const SENTINEL = "\u0000\u0001switchboard-number:";

/**
 * `JSON.parse(text)`, with each number the double nearest its decimal value (what the
 * server reads), whatever the engine's own reading: a token that may be read wrongly is
 * held as a string through JSON.parse and read here, exactly, with BigInt.
 */
export function parseJSON(text: string): JSONValue {
  const value = JSON.parse(text) as JSONValue;
  if (!MAYBE_HARD.test(text)) return value;
  let held = false;
  const marked = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 0x22 || !isHard(token)) return token;
    held = true;
    return '"\\u0000\\u0001switchboard-number:' + token + '"';
  });
  return held ? restoreNumbers(JSON.parse(marked) as JSONValue) : value;
}

function isHard(token: string): boolean {
  const e = token.search(/[eE]/);
  const mantissa = e < 0 ? token : token.slice(0, e);
  const digits = mantissa.replace(/[-.]/g, "").replace(/^0+/, "");
  const exponent = e < 0 ? 0 : Number(token.slice(e + 1));
  return digits.length > 15 || Math.abs(exponent) > 22;
}

function restoreNumbers(value: JSONValue): JSONValue {
  if (typeof value === "string") return value.startsWith(SENTINEL) ? parseNumber(value.slice(SENTINEL.length)) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restoreNumbers(value[i]);
    return value;
  }
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) value[key] = restoreNumbers(value[key]);
  }
  return value;
}

/** The double nearest the decimal number `token` (a JSON number), ties to even. */
export function parseNumber(token: string): number {
  const negative = token.startsWith("-");
  const body = negative ? token.slice(1) : token;
  const e = body.search(/[eE]/);
  const mantissa = e < 0 ? body : body.slice(0, e);
  const dot = mantissa.indexOf(".");
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const exponent = (e < 0 ? 0 : Number(body.slice(e + 1))) - (dot < 0 ? 0 : mantissa.length - dot - 1);
  const significand = BigInt(digits);
  let magnitude: number;
  if (significand === BigInt(0)) magnitude = 0;
  else if (exponent > 400) magnitude = Infinity;
  else if (exponent < -800) magnitude = 0;
  else if (exponent >= 0) magnitude = ratioToDouble(significand * BigInt(10) ** BigInt(exponent), BigInt(1));
  else magnitude = ratioToDouble(significand, BigInt(10) ** BigInt(-exponent));
  return negative ? -magnitude : magnitude;
}

/** The double nearest `num / den` (both positive), ties to even; Infinity past the largest. */
function ratioToDouble(num: bigint, den: bigint): number {
  const one = BigInt(1), two = BigInt(2);
  // e2 such that 2^52 <= num / den / 2^e2 < 2^53, from the bit lengths, then corrected.
  let e2 = num.toString(2).length - den.toString(2).length - 53;
  const scaled = (shift: number): [bigint, bigint] => (shift >= 0 ? [num, den << BigInt(shift)] : [num << BigInt(-shift), den]);
  for (;;) {
    const [n, d] = scaled(e2);
    const q = n / d;
    if (q < one << BigInt(52)) e2--;
    else if (q >= one << BigInt(53)) e2++;
    else break;
  }
  // Below the normal range the significand has fewer bits: the exponent stays at -1074.
  if (e2 < -1074) e2 = -1074;
  const [n, d] = scaled(e2);
  let q = n / d;
  const r = n % d;
  if (r * two > d || (r * two === d && q % two === one)) q += one;
  if (q === one << BigInt(53)) {
    q = one << BigInt(52);
    e2++;
  }
  if (e2 + 52 > 1023) return Infinity;
  // q × 2^e2, exactly: q < 2^53 is a double; the power of two is applied in halves so that
  // no intermediate leaves the range.
  const mantissa = Number(q);
  return mantissa * 2 ** Math.trunc(e2 / 2) * 2 ** (e2 - Math.trunc(e2 / 2));
}
