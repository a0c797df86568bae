// A storage for Node: one file, replaced whole, that survives a crash at any moment.

import { promises as fs, readdirSync, unlinkSync } from "fs";
import { basename, dirname, join } from "path";
import type { Storage } from "./storage.js";

/**
 * Keeps the client's manifest in one file, replaced whole: a write goes to a temporary file
 * beside it, is flushed to the disk, renamed over the old file, and the folder is flushed,
 * so a crash at any point leaves the old file or the new one, never a mixture. (The client
 * also checks the stored SHA-256 on reading.)
 */
export function fileStorage(path: string): Storage {
  const folder = dirname(path);
  return {
    async read() {
      removeStaleTemporaries(path);
      try {
        return await fs.readFile(path, "utf8");
      } catch (e) {
        if ((e as { code?: string }).code === "ENOENT") return null;
        throw e;
      }
    },
    async write(value: string) {
      const temporary = `${path}.${process.pid}.${Math.floor(Math.random() * 0x100000000)}.tmp`;
      const file = await fs.open(temporary, "wx", 0o644);
      try {
        await file.writeFile(value, "utf8");
        await file.sync();
      } catch (e) {
        await file.close();
        await fs.unlink(temporary).catch(() => undefined);
        throw e;
      }
      await file.close();
      try {
        await fs.rename(temporary, path);
      } catch (e) {
        await fs.unlink(temporary).catch(() => undefined);
        throw e;
      }
      // The rename itself is durable once the folder is.
      const directory = await fs.open(folder, "r");
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    },
  };
}

/** Removes temporary files that writes killed half-way left beside `path`. */
function removeStaleTemporaries(path: string): void {
  const folder = dirname(path), name = basename(path);
  let files: string[] = [];
  try {
    files = readdirSync(folder);
  } catch {
    return;
  }
  for (const file of files) {
    if (file.startsWith(name + ".") && file.endsWith(".tmp")) {
      try {
        unlinkSync(join(folder, file));
      } catch {
        // Another process's write in progress, or gone already.
      }
    }
  }
}
