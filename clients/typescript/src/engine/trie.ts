// The compiled route table: a trie of candidates keyed by shape (literal, typed param,
// string param, wildcard), walked depth-first in precedence order with backtracking, as
// the server's RouteTrie is. Literal edges are a Map per node.

import { accepts, isTyped, ParamType, PatternSegment, sameType } from "./pattern.js";
import { utf8Compare } from "./utf8.js";

export type SegmentMatcher =
  | { kind: "literal"; key: string }
  | { kind: "param"; name: string; type: ParamType }
  | { kind: "wildcard"; name: string; type: ParamType };

/** One expansion of one pattern of one route. */
export class Candidate {
  constructor(
    readonly route: number,
    readonly patternIndex: number,
    readonly expansion: number,
    readonly segments: SegmentMatcher[],
    readonly priority: number,
    readonly name: string,
  ) {
    this.typed = segments.some((s) => s.kind !== "literal" && isTyped(s.type));
  }

  readonly typed: boolean;

  /** Where its path binds `name`: the depth, the type and whether it is the wildcard. */
  binding(name: string): { depth: number; type: ParamType; wildcard: boolean } | null {
    for (let depth = 0; depth < this.segments.length; depth++) {
      const s = this.segments[depth];
      if (s.kind !== "literal" && s.name === name) return { depth, type: s.type, wildcard: s.kind === "wildcard" };
    }
    return null;
  }

  binds(name: string): boolean {
    for (const s of this.segments) if (s.kind !== "literal" && s.name === name) return true;
    return false;
  }
}

function precedes(a: Candidate, b: Candidate): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  // Code-point order (UTF-8's), as Swift compares route names.
  if (a.name !== b.name) return utf8Compare(a.name, b.name);
  if (a.patternIndex !== b.patternIndex) return a.patternIndex - b.patternIndex;
  return a.expansion - b.expansion;
}

class TrieNode {
  literals: Map<string, TrieNode> | null = null;
  typed: TrieNode | null = null;
  string: TrieNode | null = null;
  terminals: Candidate[] = [];
  wildcards: Candidate[] = [];
  /** The distinct param types at the typed child, to skip it when none accepts. */
  typedTypes: ParamType[] = [];
}

/** A candidate offered to `accept`, with whether one of its params failed its type. */
export type Accept = (candidate: Candidate, typeFailed: boolean) => boolean;

export class RouteTrie {
  private readonly root = new TrieNode();

  constructor(candidates: Candidate[]) {
    for (const candidate of candidates) this.insert(candidate);
    const sort = (node: TrieNode) => {
      node.terminals.sort(precedes);
      node.wildcards.sort(precedes);
      if (node.literals) for (const child of node.literals.values()) sort(child);
      if (node.typed) sort(node.typed);
      if (node.string) sort(node.string);
    };
    sort(this.root);
  }

  private insert(candidate: Candidate): void {
    let node = this.root;
    for (const m of candidate.segments) {
      if (m.kind === "literal") {
        if (node.literals === null) node.literals = new Map();
        let child = node.literals.get(m.key);
        if (child === undefined) {
          child = new TrieNode();
          node.literals.set(m.key, child);
        }
        node = child;
      } else if (m.kind === "param" && isTyped(m.type)) {
        if (!node.typedTypes.some((t) => sameType(t, m.type))) node.typedTypes.push(m.type);
        if (node.typed === null) node.typed = new TrieNode();
        node = node.typed;
      } else if (m.kind === "param") {
        if (node.string === null) node.string = new TrieNode();
        node = node.string;
      } else {
        node.wildcards.push(candidate);
        return;
      }
    }
    node.terminals.push(candidate);
  }

  /**
   * The first candidate, in precedence order, that matches `segments` and that `accept`
   * takes. `keys` are the segments as literal edges are keyed (lowercased unless the
   * manifest is case-sensitive).
   */
  match(segments: string[], keys: string[], accept: Accept): Candidate | null {
    return this.search(this.root, 0, segments, keys, accept);
  }

  /** Candidates of one shape (ending at one node, or wildcards at one node), more than one, each in precedence order. */
  get shapeGroups(): Candidate[][] {
    const terminals: Candidate[][] = [], wildcards: Candidate[][] = [];
    const visit = (node: TrieNode) => {
      if (node.terminals.length > 1) terminals.push(node.terminals);
      if (node.wildcards.length > 1) wildcards.push(node.wildcards);
      if (node.literals) for (const child of node.literals.values()) visit(child);
      if (node.typed) visit(node.typed);
      if (node.string) visit(node.string);
    };
    visit(this.root);
    return terminals.concat(wildcards);
  }

  /**
   * The candidates a path of the shape `pattern` could reach, in precedence order, each with
   * whether it certainly matches (false when a param of unknown value meets a literal or a
   * typed param). `key` folds a literal as edges are keyed. For redirect targets at load.
   */
  possibleMatches(pattern: PatternSegment[], key: (literal: string) => string): [Candidate, boolean][] {
    const out: [Candidate, boolean][] = [];
    const certainAt = (c: Candidate) => c.segments.every((s) => s.kind !== "wildcard" || !isTyped(s.type));
    const collect = (node: TrieNode) => {
      for (const c of node.terminals.concat(node.wildcards)) out.push([c, false]);
      if (node.literals) for (const child of node.literals.values()) collect(child);
      if (node.typed) collect(node.typed);
      if (node.string) collect(node.string);
    };
    const walk = (node: TrieNode, depth: number, certain: boolean) => {
      if (depth === pattern.length) {
        for (const c of node.terminals.concat(node.wildcards)) out.push([c, certain && certainAt(c)]);
        return;
      }
      const segment = pattern[depth];
      if (segment.kind === "literal") {
        const next = node.literals?.get(key(segment.text));
        if (next !== undefined) walk(next, depth + 1, certain);
        if (node.typed !== null && node.typedTypes.some((t) => accepts(t, segment.text))) walk(node.typed, depth + 1, false);
        if (node.string !== null) walk(node.string, depth + 1, certain);
      } else if (segment.kind === "param") {
        if (node.literals) for (const child of node.literals.values()) walk(child, depth + 1, false);
        if (node.typed !== null) walk(node.typed, depth + 1, false);
        if (node.string !== null) walk(node.string, depth + 1, certain);
      } else {
        // Zero or more segments of unknown value: anything below may match.
        collect(node);
        return;
      }
      for (const c of node.wildcards) out.push([c, false]);
    };
    walk(this.root, 0, true);
    return out;
  }

  private search(node: TrieNode, depth: number, segments: string[], keys: string[], accept: Accept): Candidate | null {
    if (depth === segments.length) {
      return offer(node.terminals, segments, accept) ?? offer(node.wildcards, segments, accept);
    }
    if (node.literals !== null) {
      const child = node.literals.get(keys[depth]);
      if (child !== undefined) {
        const found = this.search(child, depth + 1, segments, keys, accept);
        if (found !== null) return found;
      }
    }
    if (node.typed !== null) {
      const value = segments[depth];
      let anyAccepts = false;
      for (const type of node.typedTypes) if (accepts(type, value)) { anyAccepts = true; break; }
      if (anyAccepts) {
        const found = this.search(node.typed, depth + 1, segments, keys, accept);
        if (found !== null) return found;
      }
    }
    if (node.string !== null) {
      const found = this.search(node.string, depth + 1, segments, keys, accept);
      if (found !== null) return found;
    }
    return offer(node.wildcards, segments, accept);
  }
}

function offer(list: Candidate[], segments: string[], accept: Accept): Candidate | null {
  for (const candidate of list) {
    if (accept(candidate, candidate.typed && typeFails(candidate, segments))) return candidate;
  }
  return null;
}

/** Whether a param of `candidate` fails its type on `segments`. */
function typeFails(candidate: Candidate, segments: string[]): boolean {
  const matchers = candidate.segments;
  for (let depth = 0; depth < matchers.length; depth++) {
    const m = matchers[depth];
    if (m.kind === "literal") continue;
    const value = m.kind === "param" ? segments[depth] : segments.slice(depth).join("/");
    if (!accepts(m.type, value)) return true;
  }
  return false;
}
