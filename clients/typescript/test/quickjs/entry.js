// What QuickJS runs, bundled by esbuild with the package's built modules (run.py): the
// conformance runner and a timed start of the client, as an app's JS thread sees it.
"use strict";
const { runVectors } = require("../../dist/vectors.js");
const { createClient, compileManifest } = require("../../dist/index.js");
const { storedEntry } = require("../../dist/storage/storage.js");
const { wrongRefusals } = require("../manifest-errors.js");

/** One vectors document: its totals and first disagreements, as JSON. */
globalThis.switchboardVectors = (name, text) => {
  const { passed, failed } = runVectors(name, text);
  return JSON.stringify({ passed, failures: failed.length, first: failed.slice(0, 3) });
};

/** Each manifest of a manifest-errors document refused with exactly its errors: the ones that are not, as JSON. */
globalThis.switchboardErrors = (text) => {
  const document = JSON.parse(text);
  return JSON.stringify({ cases: document.cases.length, wrong: wrongRefusals(document, compileManifest) });
};

/** What the client stores for `text` (the entry a synchronous storage such as MMKV reads back). */
globalThis.switchboardStoredEntry = (text) => storedEntry(text, compileManifest(text).etag);

/**
 * Milliseconds from `createClient` to the answer of a first resolve, with `text` bundled
 * (`stored` null) or read back from a synchronous storage holding `stored`.
 */
globalThis.switchboardStart = (text, stored, url) => {
  const started = Date.now();
  const options = { server: "http://127.0.0.1:9" };
  if (stored === null) options.bundled = text;
  else options.storage = { read: () => stored, write() {} };
  const client = createClient(options);
  const result = client.resolve(url);
  const took = Date.now() - started;
  if (result === null) throw new Error("no manifest in use after createClient");
  return JSON.stringify({ ms: took, status: result.status, source: client.current.source });
};
