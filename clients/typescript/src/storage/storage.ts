// Where the updater keeps its last good manifest between runs, and the format of what it
// keeps there: a header line with the body's SHA-256, length and ETag, then the body.

import { encodeUTF8 } from "../engine/utf8";

/** Keeps one string; the client keeps its last good manifest in it. Either method may return a promise. */
export interface Storage {
  read(): string | null | undefined | Promise<string | null | undefined>;
  write(value: string): void | Promise<void>;
}

export const MAGIC = "switchboard-client-cache 1";

/** A storage entry: a header line with the body's SHA-256, length and ETag, then the body. */
export function storedEntry(body: string, etag: string, digest: string): string {
  return `${MAGIC} ${digest} ${encodeUTF8(body).length} ${etag}\n${body}`;
}

/** A stored entry's parts, or why it cannot be one. */
export type StoredEntry = { digest: string; etag: string; body: string; damaged?: undefined } | { damaged: string };

/** Reads an entry; its SHA-256 is checked by the caller, which may compute it asynchronously. */
export function parseStoredEntry(text: string): StoredEntry {
  const newline = text.indexOf("\n");
  const fields = newline < 0 ? [] : text.slice(0, newline).split(" ");
  const body = text.slice(newline + 1);
  if (fields.length < 5 || `${fields[0]} ${fields[1]}` !== MAGIC) return { damaged: "not a switchboard client cache" };
  const length = encodeUTF8(body).length;
  if (length !== Number(fields[3])) return { damaged: `${length} bytes of manifest, the header says ${fields[3]}` };
  return { digest: fields[2], etag: fields.slice(4).join(" "), body };
}
