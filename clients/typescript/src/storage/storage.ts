// Where the updater keeps its last good manifest between runs, and the format of what it
// keeps there: a header line, then the manifest's text.
//
//   switchboard-client-cache 2 <checksum> <length> <ETag>
//
// `checksum` is the FNV-1a hash (32 bits, 8 hex digits) of the text's UTF-16 code units
// and `length` their count: a store cut short or damaged is refused at once, for the cost
// of one pass over the text, where a SHA-256 on an interpreter would take longer than the
// whole compile. (The ETag's digest was checked when the manifest was fetched.) Entries
// of format 1, written before, carried the SHA-256 of the UTF-8 bytes and are still read.

import { encodeUTF8 } from "../engine/utf8.js";

/** Keeps one string; the client keeps its last good manifest in it. Either method may return a promise. */
export interface Storage {
  read(): string | null | undefined | PromiseLike<string | null | undefined>;
  write(value: string): void | PromiseLike<void>;
}

const MAGIC = "switchboard-client-cache";

/** A storage entry for `body` and the ETag it was served with. */
export function storedEntry(body: string, etag: string): string {
  return `${MAGIC} 2 ${checksum(body)} ${body.length} ${etag}\n${body}`;
}

/** A stored entry's parts, or why it cannot be one; `sha256`: the digest a format-1 entry's body must have. */
export type StoredEntry =
  | { etag: string; body: string; sha256?: string; damaged?: undefined }
  | { damaged: string };

/** Reads an entry and checks it; a format-1 entry's SHA-256 is left to the caller (it may compute it asynchronously). */
export function parseStoredEntry(text: string): StoredEntry {
  const newline = text.indexOf("\n");
  const fields = newline < 0 ? [] : text.slice(0, newline).split(" ");
  const body = text.slice(newline + 1);
  if (fields.length < 5 || fields[0] !== MAGIC || (fields[1] !== "1" && fields[1] !== "2")) return { damaged: "not a switchboard client cache" };
  const etag = fields.slice(4).join(" ");
  if (fields[1] === "1") {
    const length = encodeUTF8(body).length;
    if (length !== Number(fields[3])) return { damaged: `${length} bytes of manifest, the header says ${fields[3]}` };
    return { etag, body, sha256: fields[2] };
  }
  if (body.length !== Number(fields[3])) return { damaged: `${body.length} characters of manifest, the header says ${fields[3]}` };
  if (checksum(body) !== fields[2]) return { damaged: "the manifest's checksum is not the one recorded" };
  return { etag, body };
}

/** FNV-1a over UTF-16 code units, as 8 hex digits. */
export function checksum(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
