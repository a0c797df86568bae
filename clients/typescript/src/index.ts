// switchboard-client: Switchboard's route engine and manifest updater for React Native
// apps and Node backends. No `node:` module, Buffer or platform URL class is used here;
// `switchboard-client/node` adds what only Node has (file storage).

import { CompiledManifest } from "./engine";

export { CompiledManifest, ContextError, maxRedirects } from "./engine";
export type { ResolveContext, ResolveResult } from "./engine";
export { ManifestError } from "./manifest";
export type { Diagnostic } from "./manifest";
export { sha256Hex } from "./sha256";

/** Compiles manifest JSON text; throws ManifestError listing every problem when the engine cannot use it. */
export function compileManifest(text: string): CompiledManifest {
  return new CompiledManifest(text);
}

export { SwitchboardClient, backoff, createClient, intervalFor, retryAfterSeconds } from "./client";
export type { ClientEvent, ClientOptions, FailureKind, Logger, ManifestInUse, ManifestSource, Storage, UpdatePolicy } from "./client";
