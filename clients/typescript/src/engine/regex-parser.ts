// The regex dialect of `regex` params, parsed into a tree and checked: what the contract
// accepts (docs/manifest.md) and nothing that could not be matched in linear time.

export type Range = [number, number];

export class ScalarSet {
  constructor(readonly ranges: Range[], readonly negated: boolean) {}

  static readonly all = new ScalarSet([], true);
  static readonly digits = new ScalarSet([[0x30, 0x39]], false);
  static readonly word = new ScalarSet([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]], false);
  static readonly space = new ScalarSet([[0x09, 0x0d], [0x20, 0x20]], false);

  contains(value: number): boolean {
    let inside = false;
    for (const [lo, hi] of this.ranges) if (value >= lo && value <= hi) { inside = true; break; }
    return inside !== this.negated;
  }

  get positiveRanges(): Range[] {
    if (!this.negated) return this.ranges;
    const result: Range[] = [];
    let next = 0;
    for (const [lo, hi] of [...this.ranges].sort((a, b) => a[0] - b[0])) {
      if (lo > next) result.push([next, lo - 1]);
      next = Math.max(next, hi + 1);
    }
    if (next <= 0x10ffff) result.push([next, 0x10ffff]);
    return result;
  }

  union(other: ScalarSet): ScalarSet {
    return new ScalarSet([...this.positiveRanges, ...other.positiveRanges], false);
  }

  intersects(other: ScalarSet): boolean {
    for (const [a0, a1] of this.positiveRanges) for (const [b0, b1] of other.positiveRanges) if (a0 <= b1 && b0 <= a1) return true;
    return false;
  }
}

export type Node =
  | { k: "empty" }
  | { k: "scalar"; v: number }
  | { k: "any" }
  | { k: "set"; set: ScalarSet }
  | { k: "concat"; nodes: Node[] }
  | { k: "alt"; nodes: Node[] }
  | { k: "rep"; node: Node; min: number; max: number | null }
  | { k: "start" }
  | { k: "end" };

function nullable(n: Node): boolean {
  switch (n.k) {
    case "empty": case "start": case "end": return true;
    case "scalar": case "any": case "set": return false;
    case "concat": return n.nodes.every(nullable);
    case "alt": return n.nodes.some(nullable);
    case "rep": return n.min === 0 || nullable(n.node);
  }
}

function hasRepeatingQuantifier(n: Node): boolean {
  switch (n.k) {
    case "concat": case "alt": return n.nodes.some(hasRepeatingQuantifier);
    case "rep": return (n.max ?? 2) > 1 || hasRepeatingQuantifier(n.node);
    default: return false;
  }
}

function firstSet(n: Node): ScalarSet {
  switch (n.k) {
    case "empty": case "start": case "end": return new ScalarSet([], false);
    case "scalar": return new ScalarSet([[n.v, n.v]], false);
    case "any": return ScalarSet.all;
    case "set": return n.set;
    case "concat": {
      let result = new ScalarSet([], false);
      for (const node of n.nodes) {
        result = result.union(firstSet(node));
        if (!nullable(node)) break;
      }
      return result;
    }
    case "alt": return n.nodes.reduce((acc, node) => acc.union(firstSet(node)), new ScalarSet([], false));
    case "rep": return firstSet(n.node);
  }
}

/** Why a `regex` param's pattern was refused. */
export class RegexError extends Error {
  constructor(readonly kind: "syntax" | "unsupported" | "unsafe" | "tooLarge", detail: string) {
    super(kind === "syntax" ? `regex syntax: ${detail}`
      : kind === "unsupported" ? `${detail} not supported in regex params`
      : kind === "unsafe" ? `unsafe regex: ${detail} can take super-linear time in backtracking engines`
      : `regex compiles to more than ${MAX_PROGRAM_SIZE} instructions`);
  }
}

const MAX_COUNT = 1000, MAX_DEPTH = 32;
/** Instructions a compiled regex may have. */
export const MAX_PROGRAM_SIZE = 4096;

export class Parser {
  private index = 0;
  private depth = 0;
  constructor(private readonly s: number[]) {}

  static parse(pattern: string): Node {
    const parser = new Parser(Array.from(pattern, (c) => c.codePointAt(0) as number));
    const node = parser.alternation();
    if (parser.index !== parser.s.length) throw new RegexError("syntax", "unbalanced ')'");
    check(node);
    return node;
  }

  private peek(): number | undefined { return this.index < this.s.length ? this.s[this.index] : undefined; }

  private alternation(): Node {
    this.depth++;
    try {
      if (this.depth > MAX_DEPTH) throw new RegexError("syntax", "groups nested too deeply");
      const branches = [this.concatenation()];
      while (this.peek() === 0x7c) {
        this.index++;
        branches.push(this.concatenation());
      }
      return branches.length === 1 ? branches[0] : { k: "alt", nodes: branches };
    } finally {
      this.depth--;
    }
  }

  private concatenation(): Node {
    const nodes: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== 0x7c && c !== 0x29; c = this.peek()) {
      let atom = this.atom();
      for (let q = this.peek(); q === 0x2a || q === 0x2b || q === 0x3f || q === 0x7b; q = this.peek()) {
        if (atom.k === "start" || atom.k === "end") throw new RegexError("syntax", "nothing to repeat");
        if (atom.k === "rep") throw new RegexError("unsafe", "nested quantifiers");
        const [min, max] = this.quantifier();
        atom = { k: "rep", node: atom, min, max };
        if (this.peek() === 0x3f) this.index++;
      }
      nodes.push(atom);
    }
    return nodes.length === 1 ? nodes[0] : nodes.length === 0 ? { k: "empty" } : { k: "concat", nodes };
  }

  private quantifier(): [number, number | null] {
    const c = this.s[this.index++];
    if (c === 0x2a) return [0, null];
    if (c === 0x2b) return [1, null];
    if (c === 0x3f) return [0, 1];
    const min = this.number();
    let max: number | null = min;
    if (this.peek() === 0x2c) {
      this.index++;
      max = this.peek() === 0x7d ? null : this.number();
    }
    if (this.peek() !== 0x7d) throw new RegexError("syntax", "expected '}'");
    this.index++;
    if (max !== null && max < min) throw new RegexError("syntax", `{${min},${max}}: the maximum is below the minimum`);
    return [min, max];
  }

  private number(): number {
    let value = 0, digits = 0;
    for (let c = this.peek(); c !== undefined && c >= 0x30 && c <= 0x39; c = this.peek()) {
      value = value * 10 + (c - 0x30);
      digits++;
      this.index++;
      if (value > MAX_COUNT) throw new RegexError("unsafe", `a count over ${MAX_COUNT}`);
    }
    if (digits === 0) throw new RegexError("syntax", "expected a number in '{}'");
    return value;
  }

  private atom(): Node {
    const c = this.s[this.index++];
    switch (c) {
      case 0x2e: return { k: "any" };
      case 0x5e: return { k: "start" };
      case 0x24: return { k: "end" };
      case 0x2a: case 0x2b: case 0x3f: case 0x7b:
        throw new RegexError("syntax", `nothing to repeat before '${String.fromCodePoint(c)}'`);
      case 0x5b: return { k: "set", set: this.characterClass() };
      case 0x5c: return this.escape();
      case 0x28: {
        if (this.peek() === 0x3f) {
          this.index++;
          if (this.peek() === 0x3a) {
            this.index++;
          } else if (this.peek() === 0x3c && this.index + 1 < this.s.length && this.s[this.index + 1] !== 0x3d && this.s[this.index + 1] !== 0x21) {
            while (this.peek() !== undefined && this.peek() !== 0x3e) this.index++;
            if (this.peek() !== 0x3e) throw new RegexError("syntax", "unterminated group name");
            this.index++;
          } else {
            throw new RegexError("unsupported", "lookaround and inline options");
          }
        }
        const inner = this.alternation();
        if (this.peek() !== 0x29) throw new RegexError("syntax", "missing ')'");
        this.index++;
        return inner;
      }
      default: return { k: "scalar", v: c };
    }
  }

  private escape(): Node {
    const c = this.peek();
    if (c === undefined) throw new RegexError("syntax", "trailing backslash");
    this.index++;
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case "d": return { k: "set", set: ScalarSet.digits };
      case "D": return { k: "set", set: new ScalarSet(ScalarSet.digits.ranges, true) };
      case "w": return { k: "set", set: ScalarSet.word };
      case "W": return { k: "set", set: new ScalarSet(ScalarSet.word.ranges, true) };
      case "s": return { k: "set", set: ScalarSet.space };
      case "S": return { k: "set", set: new ScalarSet(ScalarSet.space.ranges, true) };
      case "n": return { k: "scalar", v: 0x0a };
      case "t": return { k: "scalar", v: 0x09 };
    }
    if ((c >= 0x31 && c <= 0x39) || ch === "k") throw new RegexError("unsupported", "backreferences");
    if ("bBAzZG".includes(ch)) throw new RegexError("unsupported", `the assertion \\${ch}`);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) throw new RegexError("unsupported", `the escape \\${ch}`);
    return { k: "scalar", v: c };
  }

  private characterClass(): ScalarSet {
    const ranges: Range[] = [];
    let negated = false;
    if (this.peek() === 0x5e) { negated = true; this.index++; }
    let first = true;
    for (let c = this.peek(); c !== undefined && (c !== 0x5d || first); c = this.peek()) {
      first = false;
      this.index++;
      let low: number;
      if (c === 0x5c) {
        const e = this.escape();
        if (e.k === "scalar") low = e.v;
        else if (e.k === "set") { ranges.push(...e.set.positiveRanges); continue; }
        else throw new RegexError("syntax", "bad escape in class");
      } else {
        low = c;
      }
      if (this.peek() === 0x2d && this.index + 1 < this.s.length && this.s[this.index + 1] !== 0x5d) {
        this.index++;
        let high = this.s[this.index++];
        if (high === 0x5c) {
          const e = this.escape();
          if (e.k !== "scalar") throw new RegexError("syntax", "bad range in class");
          high = e.v;
        }
        if (high < low) throw new RegexError("syntax", "range out of order in class");
        ranges.push([low, high]);
      } else {
        ranges.push([low, low]);
      }
    }
    if (this.peek() !== 0x5d) throw new RegexError("syntax", "missing ']'");
    this.index++;
    return new ScalarSet(ranges, negated);
  }
}

function check(n: Node): void {
  if (n.k === "concat" || n.k === "alt") for (const x of n.nodes) check(x);
  else if (n.k === "rep") {
    if ((n.max ?? 2) > 1) {
      if (hasRepeatingQuantifier(n.node)) throw new RegexError("unsafe", "nested quantifiers");
      if (nullable(n.node)) throw new RegexError("unsafe", "a repeated group that can match the empty string");
      checkAlternatives(n.node);
    }
    check(n.node);
  }
}

function checkAlternatives(n: Node): void {
  if (n.k === "alt") {
    const firsts = n.nodes.map(firstSet);
    for (let i = 0; i < firsts.length; i++) {
      for (let j = i + 1; j < firsts.length; j++) {
        if (firsts[i].intersects(firsts[j])) throw new RegexError("unsafe", "alternatives that can start with the same character under a quantifier");
      }
    }
    for (const b of n.nodes) checkAlternatives(b);
  } else if (n.k === "concat") {
    for (const x of n.nodes) checkAlternatives(x);
  }
}
