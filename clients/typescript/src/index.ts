// switchboard-client: Switchboard's route engine and manifest updater for React Native
// apps and Node backends. No `node:` module, Buffer or platform URL class is used here;
// `switchboard-client/node` adds what only Node has (file storage). This is the public API;
// the modules under engine/, updater/ and storage/ are not.

import { CompiledManifest } from "./engine/compiled-manifest";

export { CompiledManifest, ContextError, maxRedirects } from "./engine/compiled-manifest";
export type { ResolveContext, ResolveResult } from "./engine/compiled-manifest";
export { ManifestError } from "./engine/manifest";
export type { Diagnostic } from "./engine/manifest";
export { sha256Hex } from "./engine/sha256";

/** Compiles manifest JSON text; throws ManifestError listing every problem when the engine cannot use it. */
export function compileManifest(text: string): CompiledManifest {
  return new CompiledManifest(text);
}

export { SwitchboardClient, createClient } from "./updater/client";
export type { ClientEvent, ClientOptions, FailureKind, Logger, ManifestInUse, ManifestSource } from "./updater/options";
export type { UpdatePolicy } from "./updater/policy";
export type { Timers } from "./updater/timers";
export type { Storage } from "./storage/storage";
