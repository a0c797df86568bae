// The redirect checks that follow URLs, as the server runs them (docs/manifest.md
// `redirect`): `redirect-cycle` when some URL's redirects never end, `redirect-chain` when
// some URL's end after more hops than resolution follows.
//
// A chain never ends when it comes back to a URL already visited, or when it runs on past
// a bound far beyond any chain that shortens its URL as it goes. The URLs followed are
// instances of each redirect route that the over-approximate graph of the validator puts
// on a cycle or on a path longer than the hop limit: their params take every value that
// tells routes apart (each literal of the routes involved, each enum value, one value of
// each type's own, a value of each regex), their wildcards up to two such segments, and
// long repeats, to find chains that shorten a URL a hop at a time.

import { Diagnostic, Manifest, Route } from "./manifest.js";
import { PatternSegment, STRING, accepts } from "./pattern.js";
import { RouteTrie } from "./trie.js";
import { maxRedirects, substitute } from "./redirect.js";

/** Where a URL goes in one hop: it ends (at a route that is no redirect, or the fallback), or a redirect takes it on. */
type Step = { route: number | null; next?: undefined } | { route: number; next: string[] };

/**
 * Follows redirects one hop at a time, as resolution does, in one of two worlds: `gatesOpen`,
 * where context and query satisfy every route, or not, where each route they could refuse does.
 */
export class RedirectStepper {
  constructor(
    private readonly manifest: Manifest,
    private readonly general: RouteTrie,
    private readonly byHost: Map<string, RouteTrie>,
    private readonly gatesOpen: boolean,
    private readonly key: (literal: string) => string,
  ) {}

  step(host: string | null, path: string[]): Step {
    const keys = path.map(this.key);
    const accept = (c: { route: number }, typeFailed: boolean) => !typeFailed && (this.gatesOpen || !isGated(this.manifest.routes[c.route]));
    const restricted = host === null ? undefined : this.byHost.get(host);
    const candidate = (restricted ? restricted.match(path, keys, accept) : null) ?? this.general.match(path, keys, accept);
    if (candidate === null) return { route: null };
    const redirect = this.manifest.routes[candidate.route].redirect;
    if (redirect === null) return { route: candidate.route };
    return { route: candidate.route, next: substitute(redirect, candidate, path) };
  }
}

function isGated(route: Route): boolean {
  return route.since !== null || route.until !== null || route.queryChecks.length > 0;
}

const MAX_INSTANCES = 4096, MAX_VALUES = 48, MAX_STEPS = 200000;
/** Values of each type that no literal is: `int`, `uuid`, slug, string. */
const TYPE_SAMPLES = ["7", "0f8fad5b-d9cb-469f-a165-70867728950e", "zq", "z~q"];
/** Tried on each regex param until one is accepted: a regex needs a value of its own. */
const REGEX_SAMPLES = ["1", "12", "123", "1234", "a", "ab", "abc", "A", "a1", "a-b", "a_b", "2026-01-01", "x.y"];

interface Finding {
  diagnostics: Diagnostic[];
  loops: Set<string>;
  chains: Set<number>;
  steps: number;
}

export class RedirectChains {
  constructor(
    private readonly manifest: Manifest,
    private readonly worlds: RedirectStepper[],
    /** Hosts with routes of their own; others search the general routes, as URLs without a host do. */
    private readonly hostKeys: string[],
    /** Redirect routes the chains may pass through: how long a chain that ends may be. */
    private readonly redirects: number,
  ) {}

  /** Checks the chains from each route of `starts`, whose redirects may reach each other or `involved`. */
  check(starts: number[], involved: number[]): Diagnostic[] {
    const vocabulary = this.values(starts.concat(involved));
    const finding: Finding = { diagnostics: [], loops: new Set(), chains: new Set(), steps: 0 };
    const exhausted = () => finding.steps >= MAX_STEPS;
    search: for (const start of starts) {
      const route = this.manifest.routes[start];
      const hosts: (string | null)[] = route.hosts ?? [null, ...this.hostKeys];
      for (const pattern of route.patterns) {
        for (const expansion of pattern.expansions) {
          if (exhausted()) break search;
          for (const path of this.instances(expansion, route, vocabulary)) {
            for (const host of hosts) {
              for (const world of this.worlds) {
                if (exhausted()) break search;
                this.follow(path, host, start, world, finding);
              }
            }
          }
        }
      }
    }
    if (exhausted() && starts.length > 0) {
      finding.diagnostics.push({ severity: "warning", code: "redirect-chain", pointer: `/routes/${this.manifest.routes[starts[0]].index}/redirect`,
        message: `the redirects of ${starts.length} routes may lead to each other; ${MAX_STEPS} steps of their URLs were followed and the rest were not: a URL whose redirects do not end there ends at the fallback after ${maxRedirects} hops` });
    }
    return finding.diagnostics;
  }

  /** Every literal of these routes' patterns and redirects, their enum values, a value of each type no literal is. */
  private values(routes: number[]): string[] {
    // Only the first MAX_VALUES are kept, so nothing is added past them.
    const out: string[] = [], seen = new Set<string>();
    const add = (v: string) => {
      if (out.length < MAX_VALUES && v.length > 0 && !seen.has(v)) {
        seen.add(v);
        out.push(v);
      }
    };
    const regexes: { name: "regex" }[] = [];
    for (const index of routes) {
      const route = this.manifest.routes[index];
      for (const pattern of route.redirect === null ? route.patterns : route.patterns.concat([route.redirect])) {
        for (const expansion of pattern.expansions) for (const s of expansion) if (s.kind === "literal") add(s.text);
      }
      for (const d of route.params) {
        if (d.type.name === "enum") d.type.values.forEach(add);
        else if (d.type.name === "regex") regexes.push(d.type);
      }
    }
    TYPE_SAMPLES.forEach(add);
    for (const regex of regexes) {
      if (out.length >= MAX_VALUES) break;
      const type = regex as Parameters<typeof accepts>[0];
      if (out.some((v) => accepts(type, v))) continue;
      const sample = REGEX_SAMPLES.find((v) => accepts(type, v));
      if (sample !== undefined) add(sample);
    }
    return out.slice(0, MAX_VALUES);
  }

  /** Paths of the expansion's shape: params take each value their type accepts, the wildcard zero to two, then long repeats. */
  private instances(expansion: PatternSegment[], route: Route, vocabulary: string[]): string[][] {
    const choices: string[][] = [];
    let wildcard = false;
    for (const s of expansion) {
      if (s.kind === "literal") {
        choices.push([s.text]);
      } else if (s.kind === "param") {
        const type = route.params.find((d) => d.name === s.name)?.type ?? STRING;
        const accepted = vocabulary.filter((v) => accepts(type, v));
        if (accepted.length === 0) return [];
        choices.push(accepted);
      } else {
        wildcard = true;
      }
    }
    const tails: string[][] = [[]];
    if (wildcard) {
      for (const a of vocabulary) tails.push([a]);
      for (const a of vocabulary) for (const b of vocabulary) tails.push([a, b]);
    }
    const out: string[][] = [];
    // An odometer over the choices, for each tail in turn (shortest first).
    outer: for (const tail of tails) {
      const digits = new Array<number>(choices.length).fill(0);
      for (;;) {
        out.push(choices.map((c, k) => c[digits[k]]).concat(tail));
        if (out.length >= MAX_INSTANCES) break outer;
        let k = choices.length - 1;
        while (k >= 0) {
          digits[k]++;
          if (digits[k] < choices[k].length) break;
          digits[k] = 0;
          k--;
        }
        if (k < 0) break;
      }
    }
    if (wildcard) {
      // Chains that take a segment off each hop: one instance, its tail repeated.
      const head = choices.map((c) => c[0]);
      const repeats = vocabulary.map((v) => new Array<string>(maxRedirects + 1).fill(v));
      const literals = expansion.filter((s) => s.kind === "literal").map((s) => (s as { text: string }).text);
      for (let i = 0; i + 1 < literals.length; i++) {
        const pair: string[] = [];
        for (let r = 0; r < Math.floor(maxRedirects / 2) + 1; r++) pair.push(literals[i], literals[i + 1]);
        repeats.push(pair);
      }
      for (const r of repeats) out.push(head.concat(r));
    }
    return out;
  }

  /** Follows one URL's redirects until they end, come back to a URL, or pass the bound. */
  private follow(start: string[], host: string | null, origin: number, world: RedirectStepper, finding: Finding): void {
    let path = start;
    const visited = new Map<string, number>();
    const chain: { route: number; path: string[] }[] = [];
    const bound = Math.min(4 * (start.length + 2) + 2 * this.redirects, 256);
    for (;;) {
      finding.steps++;
      const step = world.step(host, path);
      if (step.next === undefined) {
        if (chain.length > maxRedirects && !finding.chains.has(origin)) {
          finding.chains.add(origin);
          finding.diagnostics.push({ severity: "warning", code: "redirect-chain", pointer: `/routes/${this.manifest.routes[origin].index}/redirect`,
            message: `redirects from ${display(start, host)} take ${chain.length} hops, more than the ${maxRedirects} a resolution follows: such a URL ends at the fallback` });
        }
        return;
      }
      if (visited.size === 0) visited.set(JSON.stringify(path), 0);
      chain.push({ route: step.route, path });
      path = step.next;
      if (finding.steps >= MAX_STEPS) return;
      const first = visited.get(JSON.stringify(path));
      if (first !== undefined) {
        this.report(chain.slice(first), chain.slice(first).map((c) => c.path).concat([path]), host, true, finding);
        return;
      }
      if (chain.length > bound) {
        // The redirect applied last, back to where it applied before: the loop that runs on
        // with URLs at least as long. Shown from the URL it started at, three hops of it.
        const last = chain.length - 1;
        let previous = last;
        for (let k = last - 1; k >= 0; k--) if (chain[k].route === chain[last].route) { previous = k; break; }
        if (previous === last) {
          // Past the bound with no redirect applied twice: more distinct redirects in a row
          // than the bound, which a resolution stops following long before.
          if (!finding.chains.has(origin)) {
            finding.chains.add(origin);
            finding.diagnostics.push({ severity: "warning", code: "redirect-chain", pointer: `/routes/${this.manifest.routes[origin].index}/redirect`,
              message: `redirects from ${display(start, host)} take more than ${bound} hops, more than the ${maxRedirects} a resolution follows: such a URL ends at the fallback` });
          }
          return;
        }
        const shown = chain.slice(0, 3).map((c) => c.path).concat([chain.length > 3 ? chain[3].path : path]);
        this.report(chain.slice(previous, last), shown, host, false, finding);
        return;
      }
      visited.set(JSON.stringify(path), chain.length);
    }
  }

  private report(loop: { route: number; path: string[] }[], shown: string[][], host: string | null, repeated: boolean, finding: Finding): void {
    // The loop told from its route listed first, so that each is reported once.
    const routes = this.manifest.routes;
    let first = 0;
    loop.forEach((c, k) => { if (routes[c.route].index < routes[loop[first].route].index) first = k; });
    const rotated = loop.slice(first).concat(loop.slice(0, first));
    const key = rotated.map((c) => c.route).join(",");
    if (finding.loops.has(key)) return;
    finding.loops.add(key);
    const names = rotated.concat([rotated[0]]).map((c) => `"${routes[c.route].name}"`).join(" -> ");
    const paths = shown.map((p) => display(p, host));
    const message = repeated
      ? `redirects form a cycle: ${names}: ${paths.join(" -> ")} comes back to a URL it visited`
      : `redirects never end: ${names} applies again to a URL at least as long: ${paths.join(" -> ")} -> ...`;
    finding.diagnostics.push({ severity: "error", code: "redirect-cycle", pointer: `/routes/${routes[rotated[0].route].index}/redirect`, message });
  }
}

function display(path: string[], host: string | null): string {
  return (host === null ? "" : "//" + host) + "/" + path.map((s) => s.replace(/[%/?#]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())).join("/");
}
