// Runs a manifest-errors document (conformance/manifest-errors.json) with a compile
// function: each manifest must be refused with exactly its errors, as (pointer, code)
// sorted. Plain JavaScript with no Node module: the Node tests and the QuickJS bundle share it.
"use strict";

/** The cases refused otherwise than they must be: `name: expected ..., got ...`. */
function wrongRefusals(document, compileManifest) {
  const wrong = [];
  for (const c of document.cases) {
    let got = [];
    try {
      compileManifest(c.manifest);
    } catch (e) {
      if (!Array.isArray(e.diagnostics)) throw e;
      got = e.diagnostics.filter((d) => d.severity === "error").map((d) => ({ pointer: d.pointer, code: d.code }))
        .sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    }
    if (JSON.stringify(got) !== JSON.stringify(c.errors)) wrong.push(`${c.name}: expected ${JSON.stringify(c.errors)}, got ${JSON.stringify(got)}`);
  }
  return wrong;
}

module.exports = { wrongRefusals };
