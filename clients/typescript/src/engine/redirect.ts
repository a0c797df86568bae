// What a redirect does, apart from the table that holds it: the hops a resolution follows,
// and the target's path with the match's values put in. Both the resolution
// (compiled-manifest) and the check of the table's chains (redirect-chains) use them.

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
