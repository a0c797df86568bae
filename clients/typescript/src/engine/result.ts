// What a resolution answers: the body of `GET /v1/resolve`, typed by its `status`.

import type { JSONObject } from "./json.js";
import type { Style } from "./manifest.js";

/** A presentation as a result carries it: its `style` and the options the manifest gave it. */
export type PresentationJSON = { style: Style } & JSONObject;

/** The manifest that answered: its own version and its ETag. */
export interface ManifestMember {
  version: number;
  etag: string;
}

/** A URL a route took: where it goes, with what, and how. */
export interface MatchedResult {
  url: string;
  status: "matched";
  /** The route's name and the pattern (or alias) that matched. */
  route: { name: string; pattern: string };
  destination: string;
  params: JSONObject;
  presentation: PresentationJSON;
  fragment?: string;
  manifest: ManifestMember;
}

/** An app URL no route took: the manifest's fallback (a web view), with the URL as its `url` param. */
export interface FallbackResult {
  url: string;
  status: "fallback";
  destination: string;
  params: JSONObject;
  presentation: PresentationJSON;
  fragment?: string;
  manifest: ManifestMember;
}

/** A URL the app does not own: open it outside (the system browser, another app). */
export interface ExternalResult {
  url: string;
  status: "external";
  presentation: { style: "external" };
  manifest: ManifestMember;
}

/** A URL refused outright, and why (docs/manifest.md, rejection reasons). */
export interface RejectedResult {
  url: string;
  status: "rejected";
  reason: string;
  manifest: ManifestMember;
}

/** The body of `GET /v1/resolve`, members in the server's order; `status` tells which. */
export type ResolveResult = MatchedResult | FallbackResult | ExternalResult | RejectedResult;
