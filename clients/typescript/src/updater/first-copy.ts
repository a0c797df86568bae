// The manifest a client starts from, before the server is asked: the last good copy in
// storage, else the bundled one; each refused with a `bootstrap` failure when it cannot be
// used, so that the other (or the server) is.

import { CompiledManifest } from "../engine/compiled-manifest.js";
import { sha256Hex } from "../engine/sha256.js";
import { encodeUTF8 } from "../engine/utf8.js";
import { parseStoredEntry } from "../storage/storage.js";
import { isPromiseLike } from "./manifest-helpers.js";
import { ClientOptions, Failure, ManifestInUse, ManifestSource } from "./options.js";

/** A manifest in use; one without an ETag given (a bundled copy's own) computes it when first read. */
export function manifestInUse(compiled: CompiledManifest, etag: string | null, source: ManifestSource): ManifestInUse {
  const m = { compiled, source, version: compiled.version } as ManifestInUse;
  if (etag !== null) m.etag = etag;
  else Object.defineProperty(m, "etag", { enumerable: true, get: () => compiled.etag });
  return m;
}

/** The stored copy, checked and compiled; null (after `fail`) when it cannot be used. */
export function readStored(text: string, options: ClientOptions, fail: (failure: Failure) => void): ManifestInUse | null | Promise<ManifestInUse | null> {
  const entry = parseStoredEntry(text);
  const damaged = (why: string) => {
    fail(new Failure("bootstrap", `the stored manifest is damaged: ${why}; not used`));
    return null;
  };
  if (entry.damaged !== undefined) return damaged(entry.damaged);
  const use = () => {
    try {
      // A Switchboard ETag names the canonical text the server served, which is what
      // is stored: the engine need not compute it again.
      const compiled = new CompiledManifest(entry.body, entry.etag.startsWith('"sha256-') ? { etag: entry.etag } : {});
      return manifestInUse(compiled, entry.etag, "cache");
    } catch (e) {
      fail(new Failure("bootstrap", `the stored manifest does not compile: ${(e as Error).message}; not used`));
      return null;
    }
  };
  if (entry.sha256 === undefined) return use();
  // A format-1 entry: its SHA-256, once (the next write is of format 2).
  const check = (digest: string) => (digest === entry.sha256 ? use() : damaged("the manifest's SHA-256 is not the one recorded"));
  const bytes = encodeUTF8(entry.body);
  const digest = options.sha256 ? options.sha256(bytes) : sha256Hex(bytes);
  return isPromiseLike(digest) ? Promise.resolve(digest).then(check) : check(digest);
}

/** The bundled copy, compiled; null (after `fail`) when there is none or it cannot be used. */
export function fromBundle(options: ClientOptions, fail: (failure: Failure) => void): ManifestInUse | null {
  if (options.bundled === undefined) return null;
  try {
    const etag = options.bundledEtag;
    const compiled = new CompiledManifest(options.bundled, etag === undefined ? {} : { etag });
    return manifestInUse(compiled, etag ?? null, "bundle");
  } catch (e) {
    fail(new Failure("bootstrap", `the bundled manifest does not compile: ${(e as Error).message}; not used`));
    return null;
  }
}
