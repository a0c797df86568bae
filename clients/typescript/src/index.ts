// switchboard-client: Switchboard's route engine and manifest updater for React Native
// apps and Node backends. No `node:` module, Buffer or platform URL class is used here;
// `switchboard-client/node` adds what only Node has (file storage). This is the public API;
// the modules under engine/, updater/ and storage/ are not.

import { CompiledManifest, ResolveResult } from "./engine/compiled-manifest";
import { JSONValue } from "./engine/json";
import { jsonText } from "./engine/json-text";

export { CompiledManifest, ContextError, maxRedirects } from "./engine/compiled-manifest";
export type { ResolveContext, ResolveResult } from "./engine/compiled-manifest";
export { ManifestError } from "./engine/manifest";
export type { Diagnostic } from "./engine/manifest";
export { sha256Hex } from "./engine/sha256";

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

export { SwitchboardClient, createClient } from "./updater/client";
export type { ClientEvent, ClientOptions, FailureKind, Logger, ManifestInUse, ManifestSource } from "./updater/options";
export type { UpdatePolicy } from "./updater/policy";
export type { Timers } from "./updater/timers";
export type { Storage } from "./storage/storage";
