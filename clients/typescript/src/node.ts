// switchboard-client/node: what only Node has. A file storage that survives a crash at
// any moment, and SHA-256 from Node's crypto (Node 18 has no global WebCrypto).

import { createHash } from "crypto";

export { fileStorage } from "./storage/file.js";

/** SHA-256 as hex from Node's crypto: pass as the client's `sha256` option. */
export function nodeSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
