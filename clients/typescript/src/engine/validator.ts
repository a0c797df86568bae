// The checks that need the compiled tries, as the server runs them: duplicate names,
// duplicates, ambiguous routes and patterns that never win, redirect targets and cycles.
// A bundled or stored manifest the server would refuse is refused here too
// (conformance/manifest-errors.json holds the two engines to the same refusals).

import { Diagnostic, Manifest, ParamDeclaration, Route } from "./manifest.js";
import { ParamType, covers as typeCovers, expansionText, isDisjoint } from "./pattern.js";
import { RedirectChains, RedirectStepper } from "./redirect-chains.js";
import { Candidate, RouteTrie } from "./trie.js";
import { utf8Compare } from "./utf8.js";

/** Hops a resolution follows; a chain longer than this ends at the fallback. */
export const maxRedirects = 8;

export class TableValidator {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly reported = new Set<string>();
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
      for (const group of trie.shapeGroups) this.checkShapeGroup(group);
    }
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

  private checkShapeGroup(group: Candidate[]): void {
    const shadowed = new Set<number>();
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const a = group[i], b = group[j];
        // `a` is tried first; when it accepts every URL `b` accepts, `b` never wins there:
        // a route of higher priority, or an expansion of the same pattern keeping earlier
        // groups. (Same priority is `ambiguous` or `duplicate`.)
        const sibling = a.route === b.route && a.patternIndex === b.patternIndex;
        if (!shadowed.has(j) && (sibling || a.priority > b.priority) && this.covers(a, b)) {
          shadowed.add(j);
          const key = `${b.route}:${b.patternIndex}`;
          const entry = this.shadowing.get(key) ?? { route: b.route, pattern: b.patternIndex, shadowed: 0, by: "" };
          entry.shadowed++;
          if (!sibling) entry.by = `${this.label(a)} has priority ${a.priority} > ${b.priority} and matches every URL it matches`;
          this.shadowing.set(key, entry);
        }
        if (sibling || !this.overlaps(a, b)) continue;
        const identical = this.covers(a, b) && this.covers(b, a);
        if (a.route === b.route) {
          if (identical) this.report(b, "duplicate", `route ${this.label(b)} lists the same pattern twice; remove one alias`);
        } else if (a.priority === b.priority && identical) {
          this.report(b, "duplicate", `routes ${this.label(a)} and ${this.label(b)} have the same pattern and priority: "${b.name}" is a duplicate that can never be reached; remove one or give them different params`);
        } else if (a.priority === b.priority) {
          this.report(b, "ambiguous", `routes ${this.label(a)} and ${this.label(b)} can both match the same URL with the same shape and priority ${a.priority}; give one a higher "priority" or make their param types disjoint`);
        }
      }
    }
  }

  private report(c: Candidate, code: string, message: string): void {
    const key = code + "\u0000" + message;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.diagnostics.push(error(code, this.pointer(c), message));
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
    const depth = new Map<number, number>();
    const longest = (node: number): number => {
      const known = depth.get(node);
      if (known !== undefined) return known < 0 ? Infinity : known;
      depth.set(node, -1);
      let most = 1;
      for (const next of edges.get(node) ?? []) {
        most = Math.max(most, longest(next) + 1);
        if (most === Infinity) break;
      }
      depth.set(node, most);
      return most;
    };
    const starts = Array.from(edges.keys()).sort((a, b) => a - b).filter((s) => longest(s) > maxRedirects);
    if (starts.length === 0) return;
    const involved: number[] = [];
    for (const start of starts) for (const target of found.get(start) ?? []) if (!involved.includes(target)) involved.push(target);
    const gated = routes.some((r) => r.since !== null || r.until !== null || r.queryChecks.length > 0);
    const worlds = (gated ? [true, false] : [true]).map((open) => new RedirectStepper(this.manifest, this.general, this.byHost, open, this.key));
    const chains = new RedirectChains(this.manifest, worlds, hostKeys.filter((h) => this.byHost.has(h)), starts.length);
    this.diagnostics.push(...chains.check(starts, involved));
  }
}

function error(code: string, pointer: string, message: string): Diagnostic {
  return { severity: "error", code, pointer, message };
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
