// App versions, compared by semver precedence: build metadata ignored, `7.2` is `7.2.0`,
// a pre-release sorts before its release.

import { isSlugCode } from "./pattern.js";

export class SemanticVersion {
  private constructor(readonly major: number, readonly minor: number, readonly patch: number, readonly prerelease: string[]) {}

  /** Parses MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD] (at most 9 digits a number); null when malformed. */
  static parse(text: string): SemanticVersion | null {
    const numbers = [0, 0, 0];
    let current = 0, count = 0, digits = 0, i = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) {
        if (digits >= 9) return null;
        current = current * 10 + (c - 48);
        digits++;
      } else if (c === 46) {
        if (digits === 0 || count >= 2) return null;
        numbers[count++] = current;
        current = 0;
        digits = 0;
      } else if (c === 45 || c === 43) {
        break;
      } else {
        return null;
      }
    }
    if (digits === 0) return null;
    numbers[count] = current;
    let pre: string[] = [];
    if (i < text.length) {
      const rest = text.slice(i + 1);
      if (text.charCodeAt(i) === 45) {
        const plus = rest.indexOf("+");
        const preText = plus < 0 ? rest : rest.slice(0, plus);
        if (!identifiersAreValid(preText)) return null;
        pre = preText.split(".");
        if (plus >= 0 && !identifiersAreValid(rest.slice(plus + 1))) return null;
      } else if (!identifiersAreValid(rest)) {
        return null;
      }
    }
    return new SemanticVersion(numbers[0], numbers[1], numbers[2], pre);
  }

  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}` + (this.prerelease.length === 0 ? "" : "-" + this.prerelease.join("."));
  }

  /** Negative, zero or positive as `this` sorts before, with or after `other`. */
  compare(other: SemanticVersion): number {
    if (this.major !== other.major) return this.major - other.major;
    if (this.minor !== other.minor) return this.minor - other.minor;
    if (this.patch !== other.patch) return this.patch - other.patch;
    const a = this.prerelease, b = other.prerelease;
    if (a.length === 0 || b.length === 0) return (a.length === 0 ? 1 : 0) - (b.length === 0 ? 1 : 0);
    for (let k = 0; k < Math.min(a.length, b.length); k++) {
      if (a[k] === b[k]) continue;
      const x = numeric(a[k]), y = numeric(b[k]);
      if (x !== null && y !== null) return x - y;
      if (x !== null) return -1;
      if (y !== null) return 1;
      return a[k] < b[k] ? -1 : 1;
    }
    return a.length - b.length;
  }
}

/** A pre-release identifier as Swift's `Int(_:)` reads it: digits with an optional sign. */
function numeric(text: string): number | null {
  const match = /^([+-]?)0*([0-9]+)$/.exec(text);
  if (match === null) return null;
  const digits = match[2];
  // Beyond Int64 Swift reads no number, and the identifier compares as text.
  const limit = match[1] === "-" ? "9223372036854775808" : "9223372036854775807";
  if (digits.length > 19 || (digits.length === 19 && digits > limit)) return null;
  return Number(text);
}

function identifiersAreValid(text: string): boolean {
  return text.split(".").every((part) => {
    if (part.length === 0) return false;
    for (let i = 0; i < part.length; i++) if (!isSlugCode(part.charCodeAt(i))) return false;
    return true;
  });
}

type Operator = ">=" | "<=" | ">" | "<" | "=";

/** Space-separated comparators that must all hold (`>=7.2.0 <8.0.0`). */
export class VersionRange {
  private constructor(readonly comparators: { op: Operator; version: SemanticVersion }[]) {}

  static parse(text: string): VersionRange | null {
    const comparators: { op: Operator; version: SemanticVersion }[] = [];
    for (const token of text.split(" ")) {
      if (token.length === 0) continue;
      let op: Operator = "=";
      for (const candidate of [">=", "<=", ">", "<", "="] as Operator[]) {
        if (token.startsWith(candidate)) { op = candidate; break; }
      }
      const version = SemanticVersion.parse(token.startsWith(op) ? token.slice(op.length) : token);
      if (version === null) return null;
      comparators.push({ op, version });
    }
    return comparators.length === 0 ? null : new VersionRange(comparators);
  }

  contains(v: SemanticVersion): boolean {
    return this.comparators.every(({ op, version }) => {
      const c = v.compare(version);
      switch (op) {
        case ">=": return c >= 0;
        case "<=": return c <= 0;
        case ">": return c > 0;
        case "<": return c < 0;
        case "=": return c === 0;
      }
    });
  }

  /** Whether no version satisfies every comparator. */
  get isEmpty(): boolean {
    let low: [SemanticVersion, boolean] | null = null, high: [SemanticVersion, boolean] | null = null;
    const raise = (v: SemanticVersion, inclusive: boolean) => {
      if (low && (low[0].compare(v) > 0 || (low[0].compare(v) === 0 && !low[1]))) return;
      low = [v, inclusive];
    };
    const lower = (v: SemanticVersion, inclusive: boolean) => {
      if (high && (high[0].compare(v) < 0 || (high[0].compare(v) === 0 && !high[1]))) return;
      high = [v, inclusive];
    };
    for (const { op, version } of this.comparators) {
      if (op === ">=") raise(version, true);
      else if (op === ">") raise(version, false);
      else if (op === "<=") lower(version, true);
      else if (op === "<") lower(version, false);
      else { raise(version, true); lower(version, true); }
    }
    if (low === null || high === null) return false;
    const [l, li] = low as [SemanticVersion, boolean], [h, hi] = high as [SemanticVersion, boolean];
    const c = l.compare(h);
    return c > 0 || (c === 0 && !(li && hi));
  }

  toString(): string {
    return this.comparators.map(({ op, version }) => op + version.toString()).join(" ");
  }
}
