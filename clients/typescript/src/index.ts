// switchboard-client: Switchboard's route engine and manifest updater for React Native
// apps and Node backends. No `node:` module, Buffer or platform URL class is used here;
// `switchboard-client/node` adds what only Node has (file storage). This is the public API;
// the modules under engine/, updater/ and storage/ are not.

import { CompiledManifest, ResolveResult } from "./engine/compiled-manifest.js";
import { JSONValue } from "./engine/json.js";
import { jsonText } from "./engine/json-text.js";

export { CompiledManifest, ContextError, maxRedirects } from "./engine/compiled-manifest.js";
export type {
  ExternalResult, FallbackResult, ManifestMember, MatchedResult, PresentationJSON, RejectedResult, ResolveContext, ResolveResult,
} from "./engine/compiled-manifest.js";
export type { JSONObject, JSONValue } from "./engine/json.js";
export { ManifestError } from "./engine/manifest.js";
export type { Diagnostic, Injected, Manifest, ParamDeclaration, Presentation, Route, Style, Variant } from "./engine/manifest.js";
export type { ParamType, PatternSegment, RoutePattern } from "./engine/pattern.js";
export type { SafeRegex } from "./engine/regex.js";
export type { SemanticVersion, VersionRange } from "./engine/version.js";
export { sha256Hex } from "./engine/sha256.js";

/** Compiles manifest JSON text; throws ManifestError listing every problem when the engine cannot use it. */
export function compileManifest(text: string): CompiledManifest {
  return new CompiledManifest(text);
}

/**
 * A result as JSON text: the bytes of the server's `GET /v1/resolve` answer on every
 * engine. (`JSON.stringify(result)` writes the same bytes on an engine that spells numbers
 * as ECMAScript says, such as V8; not on one that does not, such as QuickJS.)
 */
export function resultJSON(result: ResolveResult): string {
  return jsonText(result as unknown as JSONValue);
}

export { createClient } from "./updater/client.js";
export type { SwitchboardClient } from "./updater/client.js";
export { followAppState } from "./updater/app-state.js";
export type { AppStateLike } from "./updater/app-state.js";
export type {
  ClientEvent, ClientOptions, FailedEvent, FailureKind, Fetch, FetchInit, FetchResponse, Logger, ManifestInUse, ManifestSource,
} from "./updater/options.js";
export type { UpdatePolicy } from "./updater/policy.js";
export type { Timers } from "./updater/timers.js";
export type { Storage } from "./storage/storage.js";
