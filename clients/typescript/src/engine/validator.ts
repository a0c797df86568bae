// The checks that need the compiled tries, as the server runs them: duplicate names,
// duplicates, ambiguous routes and patterns that never win, redirect targets and cycles.
// A bundled or stored manifest the server would refuse is refused here too
// (conformance/manifest-errors.json holds the two engines to the same refusals).

import { Diagnostic, Manifest, ParamDeclaration, Route, maxListed } from "./manifest.js";
import { ParamType, covers as typeCovers, expansionText, isDisjoint } from "./pattern.js";
import { longestChains, maxRedirects } from "./redirect.js";
import { RedirectChains, RedirectStepper } from "./redirect-chains.js";
import { Candidate, RouteTrie } from "./trie.js";
import { utf8Compare } from "./utf8.js";


/**
 * Comparisons of kinds one manifest may cost (a pair of kinds, or a candidate against a
 * kind): past it the shape checks stop with a warning, so that no manifest under the size
 * limit takes more than seconds to check. Real tables use a few thousand.
 */
export const comparisonBudget = 20_000_000;

export class TableValidator {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly conflicts = new Map<string, { code: string; pairs: number; a: Candidate; b: Candidate; group: number; at: [number, number] }>();
  /** Shape groups checked so far: a conflict's example comes from the first group it is found in. */
  private groupsChecked = 0;
  private comparisons = 0;
  private budgetSpent = false;
  /** Conflicts found past `maxListed`, counted and not listed (all errors). */
  unlisted = 0;
  /** Per pattern (`route:pattern`): how many of its candidates another always takes, and what took them. */
  private readonly shadowing = new Map<string, { route: number; pattern: number; shadowed: number; by: string }>();

  /**
   * `routes[candidate.route]` is a candidate's route (the routes that decoded, in order;
   * `index` is its place in the file). `key` folds a literal as the tries key it.
   */
  constructor(
    private readonly manifest: Manifest,
    private readonly general: RouteTrie,
    private readonly byHost: Map<string, RouteTrie>,
    private readonly key: (literal: string) => string,
  ) {}

  validate(): Diagnostic[] {
    this.checkNames();
    const hosts = Array.from(this.byHost.keys()).sort(utf8Compare);
    for (const trie of [this.general, ...hosts.map((h) => this.byHost.get(h) as RouteTrie)]) {
      for (const group of trie.shapeGroups) {
        this.checkShapeGroup(group);
        this.groupsChecked++;
      }
    }
    this.diagnostics.push(...this.conflictDiagnostics());
    const shadowed = Array.from(this.shadowing.values()).sort((a, b) => a.route - b.route || a.pattern - b.pattern);
    for (const entry of shadowed) {
      const route = this.manifest.routes[entry.route];
      const pattern = route.patterns[entry.pattern];
      const expansions = pattern.expansions.length;
      if (entry.shadowed !== expansions * (route.hosts?.length ?? 1)) continue;
      this.diagnostics.push(error("never-wins", `/routes/${route.index}/` + (route.patternsAsList ? `patterns/${entry.pattern}` : "pattern"),
        `route "${route.name}" (${pattern.text}) can never win: `
          + (expansions > 1 ? `each of its ${expansions} expansions is taken by a route tried before it: ` : "") + entry.by));
    }
    this.checkRedirects();
    return this.diagnostics;
  }

  private checkNames(): void {
    const first = new Map<string, number>();
    for (const route of this.manifest.routes) {
      const earlier = first.get(route.name);
      if (earlier === undefined) {
        first.set(route.name, route.index);
      } else {
        this.diagnostics.push(error("duplicate-name", `/routes/${route.index}/name`,
          `route name "${route.name}" is already used by /routes/${earlier}; names must be unique`));
      }
    }
  }

  // MARK: Same shape

  private pointer(c: Candidate): string {
    const route = this.manifest.routes[c.route];
    return `/routes/${route.index}/` + (route.patternsAsList ? `patterns/${c.patternIndex}` : "pattern");
  }

  /** `"name" (pattern)`, and for a pattern with groups the expansion meant and the groups that made it. */
  private label(c: Candidate): string {
    const pattern = this.manifest.routes[c.route].patterns[c.patternIndex];
    const groups = pattern.optionalGroupCount;
    if (groups === 0) return `"${c.name}" (${pattern.text})`;
    const kept = pattern.keptGroups[c.expansion];
    const dropped: number[] = [];
    for (let g = 0; g < groups; g++) if (!kept.includes(g)) dropped.push(g);
    const which = [kept.length === 0 ? null : `keeping group ${kept.map((g) => g + 1).join(", ")}`,
      dropped.length === 0 ? null : `dropping group ${dropped.map((g) => g + 1).join(", ")}`].filter((w) => w !== null).join(", ");
    return `"${c.name}" (${pattern.text} as ${expansionText(pattern.expansions[c.expansion])}, ${which})`;
  }

  /** Params a candidate needs from the query: declared, not bound by its path. */
  queryDeclarations(c: Candidate): ParamDeclaration[] {
    return this.manifest.routes[c.route].params.filter((d) => !c.binds(d.name));
  }

  private overlaps(a: Candidate, b: Candidate): boolean {
    const x = types(a), y = types(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const p = x[i], q = y[i];
      if (p !== null && q !== null && isDisjoint(p, q)) return false;
    }
    return true;
  }

  /** Whether `hi` accepts every URL `lo` accepts (so `lo`, tried after it, never wins). */
  private covers(hi: Candidate, lo: Candidate): boolean {
    const x = types(hi), y = types(lo);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const p = x[i], q = y[i];
      if (p !== null && q !== null && !typeCovers(p, q)) return false;
    }
    if (!rangeCovers(this.manifest.routes[hi.route], this.manifest.routes[lo.route])) return false;
    const loQuery = this.queryDeclarations(lo);
    for (const d of this.queryDeclarations(hi)) {
      if (d.type.name === "string" && !d.required) continue;
      const other = loQuery.find((o) => o.name === d.name);
      if (other === undefined || !typeCovers(d.type, other.type) || (d.required && !other.required)) return false;
    }
    return true;
  }

  /**
   * The checks of one shape compare candidates by what they are alike in: the same
   * priority, param types, version range and query declarations. Candidates alike in all
   * of it are alike to every check (each covers the other), so a group is compared kind by
   * kind, not candidate by candidate, as the server does.
   */
  private likeness(c: Candidate): string {
    const route = this.manifest.routes[c.route];
    return JSON.stringify([c.priority, types(c).map((t) => (t === null ? null : typeKey(t))),
      route.since?.toString() ?? null, route.until?.toString() ?? null,
      this.queryDeclarations(c).map((d) => [d.name, typeKey(d.type), d.required])]);
  }

  private checkShapeGroup(members: Candidate[]): void {
    const kindOf = new Map<string, number>();
    const kinds: { first: Candidate; positions: number[] }[] = [];
    const kindAt: number[] = [];
    members.forEach((c, position) => {
      const likeness = this.likeness(c);
      const k = kindOf.get(likeness);
      if (k !== undefined) {
        kinds[k].positions.push(position);
        kindAt.push(k);
      } else {
        kindOf.set(likeness, kinds.length);
        kindAt.push(kinds.length);
        kinds.push({ first: c, positions: [position] });
      }
    });
    if (!this.spend(kinds.length * kinds.length + members.length * kinds.length, members)) return;
    const memo = new Map<number, { covers: boolean; overlaps: boolean }>();
    const compare = (hi: number, lo: number) => {
      if (hi === lo) return { covers: true, overlaps: true };
      const key = hi * kinds.length + lo;
      let known = memo.get(key);
      if (known === undefined) {
        known = { covers: this.covers(kinds[hi].first, kinds[lo].first), overlaps: this.overlaps(kinds[hi].first, kinds[lo].first) };
        memo.set(key, known);
      }
      return known;
    };

    // Shadowing. Higher priorities come first in a group, and a route's candidates (and
    // within it a pattern's) stand together, in expansion order.
    const taker = kinds.map((lo, l) => kinds.findIndex((hi, h) => hi.first.priority > lo.first.priority && compare(h, l).covers));
    let patternStart = 0, routeStart = 0;
    const kindsOfPattern: number[] = []; // kinds met so far in the current pattern
    members.forEach((b, position) => {
      if (position > 0) {
        const previous = members[position - 1];
        if (previous.route !== b.route) routeStart = position;
        if (previous.route !== b.route || previous.patternIndex !== b.patternIndex) {
          patternStart = position;
          kindsOfPattern.length = 0;
        }
      }
      const kind = kindAt[position];
      const key = `${b.route}:${b.patternIndex}`;
      const shadowedBy = taker[kind];
      if (shadowedBy >= 0 || kindsOfPattern.some((k) => compare(k, kind).covers)) {
        const entry = this.shadowing.get(key) ?? { route: b.route, pattern: b.patternIndex, shadowed: 0, by: "" };
        entry.shadowed++;
        if (shadowedBy >= 0) {
          const a = kinds[shadowedBy].first;
          entry.by = `${this.label(a)} has priority ${a.priority} > ${b.priority} and matches every URL it matches`;
        }
        this.shadowing.set(key, entry);
      }
      if (!kindsOfPattern.includes(kind)) kindsOfPattern.push(kind);

      // Conflicts with the candidates of the same priority tried before it: counted per
      // kind by where they stand, reported once per pattern and code with the earliest
      // pair as the example.
      kinds.forEach((other, k) => {
        if (other.first.priority !== b.priority) return;
        const { covers: hiCovers, overlaps } = compare(k, kind);
        if (!overlaps) return;
        const beforeRoute = lowerBound(other.positions, routeStart);
        const identical = hiCovers && compare(kind, k).covers;
        if (beforeRoute > 0) {
          this.conflict(identical ? "duplicate" : "ambiguous", members[other.positions[0]], b, beforeRoute, [other.positions[0], position]);
        }
        const aliases = lowerBound(other.positions, patternStart) - beforeRoute;
        if (aliases > 0 && identical) {
          this.conflict("duplicate", members[other.positions[beforeRoute]], b, aliases, [other.positions[beforeRoute], position]);
        }
      });
    });
  }

  private conflict(code: string, a: Candidate, b: Candidate, pairs: number, at: [number, number]): void {
    const key = `${code}:${b.route}:${b.patternIndex}:${a.route === b.route}`;
    const known = this.conflicts.get(key);
    if (known === undefined) {
      this.conflicts.set(key, { code, pairs, a, b, group: this.groupsChecked, at });
    } else {
      known.pairs += pairs;
      if (known.group === this.groupsChecked && (at[0] < known.at[0] || (at[0] === known.at[0] && at[1] < known.at[1]))) {
        known.a = a;
        known.b = b;
        known.at = at;
      }
    }
  }

  /**
   * Each conflict as one diagnostic, its example pair and how many more pairs there were:
   * the first `maxListed` in the file's order, the others counted in `unlisted`.
   */
  private conflictDiagnostics(): Diagnostic[] {
    const all = Array.from(this.conflicts.values()).map((c, i) => ({ c, i }));
    const index = (c: Candidate) => this.manifest.routes[c.route].index;
    all.sort((x, y) => index(x.c.b) - index(y.c.b) || x.c.b.patternIndex - y.c.b.patternIndex || x.i - y.i);
    this.unlisted = Math.max(0, all.length - maxListed);
    return all.slice(0, maxListed).map(({ c }) => {
      let message: string;
      if (c.a.route === c.b.route) {
        message = `route ${this.label(c.b)} lists the same pattern twice; remove one alias`;
      } else if (c.code === "duplicate") {
        message = `routes ${this.label(c.a)} and ${this.label(c.b)} have the same pattern and priority: "${c.b.name}" is a duplicate that can never be reached; remove one or give them different params`;
      } else {
        message = `routes ${this.label(c.a)} and ${this.label(c.b)} can both match the same URL with the same shape and priority ${c.a.priority}; give one a higher "priority" or make their param types disjoint`;
      }
      if (c.pairs > 1) message += ` (${c.pairs - 1} more pair${c.pairs === 2 ? "" : "s"} of expansions conflict the same way)`;
      return error(c.code, this.pointer(c.b), message);
    });
  }

  /** Takes `cost` comparisons from the budget, or says once that the shape checks stop here. */
  private spend(cost: number, members: Candidate[]): boolean {
    if (this.budgetSpent) return false;
    this.comparisons += cost;
    if (this.comparisons <= comparisonBudget) return true;
    this.budgetSpent = true;
    this.diagnostics.push({ severity: "warning", code: "checks-incomplete", pointer: this.pointer(members[0]),
      message: `the checks for duplicates, ambiguity and never-wins stopped at the ${members.length} candidates of ${this.label(members[0])}'s shape: `
        + `checking them would pass ${comparisonBudget} comparisons; routes of this shape and those after it are not checked` });
    return false;
  }

  // MARK: Redirects

  /**
   * Routes a redirect route's target can lead to for URLs on `host` (null: paths and app
   * schemes), in precedence order, up to the first one that certainly matches.
   */
  private targets(index: number, host: string | null): number[] {
    const route = this.manifest.routes[index];
    if (route.redirect === null) return [];
    const restricted = host === null ? undefined : this.byHost.get(host);
    const tries = restricted ? [restricted, this.general] : [this.general];
    const result: number[] = [];
    for (const expansion of route.redirect.expansions) {
      for (const trie of tries) {
        let done = false;
        for (const [candidate, certain] of trie.possibleMatches(expansion, this.key)) {
          const target = this.manifest.routes[candidate.route];
          if (!result.includes(candidate.route)) result.push(candidate.route);
          const gated = target.since !== null || target.until !== null || this.queryDeclarations(candidate).some((d) => d.required);
          if (certain && !gated) { done = true; break; }
        }
        if (done) break;
      }
    }
    return result;
  }

  private checkRedirects(): void {
    const { routes, hostKeys } = this.manifest;
    const edges = new Map<number, number[]>(), found = new Map<number, number[]>();
    routes.forEach((route, i) => {
      if (route.redirect === null) return;
      // Where the redirect applies: its hosts, or every host and URLs with none. A host
      // without routes of its own searches only the general routes, as URLs without a host do.
      let reached: number[] = [];
      const stranded: (string | null)[] = [];
      const general = route.hosts === null ? this.targets(i, null) : null;
      if (general !== null) {
        if (general.length === 0) stranded.push(null);
        reached = general.slice();
      }
      for (const host of route.hosts ?? hostKeys) {
        const here = this.byHost.has(host) ? this.targets(i, host) : (general ?? this.targets(i, host));
        if (here.length === 0) stranded.push(host);
        for (const target of here) if (!reached.includes(target)) reached.push(target);
      }
      found.set(i, reached);
      const pointer = `/routes/${route.index}/redirect`;
      if (reached.length === 0) {
        this.diagnostics.push(error("redirect-target", pointer, `redirect "${route.redirect.text}" matches no route of the manifest`));
      } else if (stranded.length > 0) {
        const names = stranded.map((h) => h ?? "URLs without a host (paths and app schemes)");
        this.diagnostics.push({ severity: "warning", code: "redirect-target-hosts", pointer,
          message: `redirect "${route.redirect.text}" lands on a route restricted to other hosts; on ${names.join(", ")} it ends at the fallback` });
      }
      edges.set(i, reached.filter((t) => routes[t].redirect !== null));
    });
    // The graph over-approximates what follows a redirect: a route on no cycle of it and
    // starting no path longer than the hop limit needs no URL followed. The others are
    // followed URL by URL (redirect-chains.ts).
    const longest = longestChains(edges);
    const starts = Array.from(edges.keys()).sort((a, b) => a - b).filter((s) => longest(s) > maxRedirects);
    if (starts.length === 0) return;
    const involved = new Set<number>();
    for (const start of starts) for (const target of found.get(start) ?? []) involved.add(target);
    const gated = routes.some((r) => r.since !== null || r.until !== null || r.queryChecks.length > 0);
    const worlds = (gated ? [true, false] : [true]).map((open) => new RedirectStepper(this.manifest, this.general, this.byHost, open, this.key));
    const chains = new RedirectChains(this.manifest, worlds, hostKeys.filter((h) => this.byHost.has(h)), starts.length);
    this.diagnostics.push(...chains.check(starts, Array.from(involved)));
  }
}

function error(code: string, pointer: string, message: string): Diagnostic {
  return { severity: "error", code, pointer, message };
}

/** How many elements of the ascending `sorted` are less than `value`. */
function lowerBound(sorted: number[], value: number): number {
  let low = 0, high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < value) low = mid + 1; else high = mid;
  }
  return low;
}

/** A param type as a key: equal keys for equal types (`sameType`). */
function typeKey(t: ParamType): string {
  if (t.name === "enum") return "enum:" + JSON.stringify(t.values);
  if (t.name === "regex") return "regex:" + t.regex.pattern;
  return t.name;
}

function types(c: Candidate): (ParamType | null)[] {
  return c.segments.map((s) => (s.kind === "literal" ? null : s.type));
}

/** Whether `hi`'s `since`/`until` allow every version `lo`'s do: each bound `hi` has, `lo` has too. */
function rangeCovers(hi: Route, lo: Route): boolean {
  if (hi.since !== null && (lo.since === null || hi.since.compare(lo.since) !== 0)) return false;
  if (hi.until !== null && (lo.until === null || hi.until.compare(lo.until) !== 0)) return false;
  return true;
}
