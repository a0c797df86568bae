// What a redirect does, apart from the table that holds it: the hops a resolution follows,
// the target's path with the match's values put in, and the longest chain a route starts.
// The resolution (compiled-manifest) and the checks of the table (validator,
// redirect-chains) use them.

import type { RoutePattern } from "./pattern.js";
import type { Candidate } from "./trie.js";

/** Hops a resolution follows; a chain longer than this ends at the fallback. */
export const maxRedirects = 8;

/**
 * The redirect target's segments with `:params` replaced by this match's values; optional
 * groups whose params are not all bound are left out. Values are data: no dot-segment
 * removal runs on them.
 */
export function substitute(target: RoutePattern, candidate: Candidate, segments: string[]): string[] {
  const expansion = target.expansions.find((e) => e.every((s) => s.kind === "literal" || candidate.binds(s.name))) ?? [];
  const out: string[] = [];
  for (const s of expansion) {
    if (s.kind === "literal") {
      out.push(s.text);
      continue;
    }
    const bound = candidate.binding(s.name);
    if (bound === null) continue;
    const end = bound.wildcard ? segments.length : bound.depth + 1;
    for (let k = bound.depth; k < end; k++) out.push(segments[k]);
  }
  return out;
}

/**
 * The number of routes on the longest redirect path from a route of `edges` (a route and
 * the redirect routes it can lead to), Infinity when one leads into a cycle; each route's
 * answer is kept for the next call.
 */
export function longestChains(edges: Map<number, number[]>): (root: number) => number {
  const depth = new Map<number, number>();
  // Depth first without recursion: a chain of 50,000 redirects is 50,000 levels deep.
  return (root: number): number => {
    const known = depth.get(root);
    if (known !== undefined) return known < 0 ? Infinity : known;
    depth.set(root, -1);
    const stack = [{ node: root, next: 0, most: 1 }];
    let returned: number | null = null;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (returned !== null) {
        top.most = Math.max(top.most, returned + 1);
        returned = null;
      }
      const out = edges.get(top.node) ?? [];
      if (top.most === Infinity || top.next === out.length) {
        depth.set(top.node, top.most);
        stack.pop();
        returned = top.most;
        continue;
      }
      const child = out[top.next++];
      const seen = depth.get(child);
      if (seen !== undefined) {
        returned = seen < 0 ? Infinity : seen;
      } else {
        depth.set(child, -1);
        stack.push({ node: child, next: 0, most: 1 });
      }
    }
    return returned as number;
  };
}
