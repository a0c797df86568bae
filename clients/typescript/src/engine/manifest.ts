// The manifest as the engine holds it once decoded: its routes, params, variants and
// presentations, and the diagnostics a manifest the engine cannot use is refused with.

import { JSONValue } from "./json.js";
import { ParamType, RoutePattern } from "./pattern.js";
import { SemanticVersion, VersionRange } from "./version.js";

/** One problem in a manifest: its code, where (a JSON pointer) and what. */
export interface Diagnostic {
  severity: "error" | "warning";
  code: string;
  pointer: string;
  message: string;
}

/**
 * The most diagnostics a manifest's check lists: past them one `more-problems` diagnostic
 * says how many more there were, as the server's check does.
 */
export const maxListed = 1000;

/** The first `maxListed` of `diagnostics`, and one saying how many more there were (`unlisted` errors not built included). */
export function listed(diagnostics: Diagnostic[], unlisted = 0): Diagnostic[] {
  if (diagnostics.length <= maxListed && unlisted === 0) return diagnostics;
  const rest = diagnostics.slice(maxListed);
  const errors = unlisted > 0 || rest.some((d) => d.severity === "error");
  const more = rest.length + unlisted;
  return diagnostics.slice(0, maxListed).concat([{ severity: errors ? "error" : "warning", code: "more-problems", pointer: "",
    message: `${more} more problem${more === 1 ? "" : "s"} not listed: at most ${maxListed} are` }]);
}

/** A manifest the engine cannot use, with every problem found. */
export class ManifestError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.filter((d) => d.severity === "error").map((d) => `${d.pointer || "/"}: ${d.message} [${d.code}]`).join("\n"));
    this.name = "ManifestError";
  }
}

export type Style = "push" | "modal" | "sheet" | "replace" | "tab" | "web" | "external";
export const STYLES: Style[] = ["push", "modal", "sheet", "replace", "tab", "web", "external"];

/** A style and the keys passed through (in key order). */
export interface Presentation {
  style: Style;
  options: [string, JSONValue][];
}

export interface ParamDeclaration {
  name: string;
  type: ParamType;
  required: boolean;
  defaultValue: JSONValue | undefined;
}

export interface Variant {
  platforms: string[] | null;
  idioms: string[] | null;
  appVersion: VersionRange | null;
  destination: string | null;
  presentation: Presentation | null;
}

export type Injected = { constant: JSONValue } | { param: string };

export interface Route {
  index: number;
  name: string;
  patterns: RoutePattern[];
  patternsAsList: boolean;
  hosts: string[] | null;
  hostsAsWritten: string[] | null;
  destination: string | null;
  presentation: Presentation;
  params: ParamDeclaration[];
  /** Declarations some candidate leaves to the query. */
  queryDeclarations: ParamDeclaration[];
  /** Those of them that can refuse a candidate: typed, or required without a default. */
  queryChecks: ParamDeclaration[];
  inject: [string, Injected][];
  variants: Variant[];
  since: SemanticVersion | null;
  until: SemanticVersion | null;
  sinceText: string | null;
  untilText: string | null;
  priority: number;
  universalLink: boolean;
  redirect: RoutePattern | null;
}

export interface Manifest {
  version: number;
  updatedAt: string | null;
  hosts: string[];
  hostKeys: string[];
  schemes: string[];
  caseSensitive: boolean;
  fallback: { destination: string; presentation: Presentation };
  features: JSONValue | undefined;
  messages: JSONValue | undefined;
  routes: Route[];
}

