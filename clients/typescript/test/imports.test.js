// No import cycles in the package's sources: a cycle leaves one module of it half-defined
// while the other runs, which Metro and CommonJS builds turn into `undefined` at run time.
// Every import counts, type-only ones too, so a cycle cannot hide behind one.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const path = require("path");

const src = path.join(__dirname, "..", "src");

function sources(folder) {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** Each source's relative imports and re-exports, as source paths. */
function graph() {
  const edges = new Map();
  for (const file of sources(src)) {
    const text = fs.readFileSync(file, "utf8");
    const targets = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)) {
      targets.push(path.resolve(path.dirname(file), m[1].replace(/\.js$/, ".ts")));
    }
    edges.set(file, targets);
  }
  return edges;
}

/** Every cycle, each as the chain of files that closes it (Tarjan's components of more than one file, or a file importing itself). */
function cycles(edges) {
  let index = 0;
  const order = new Map(), low = new Map(), stack = [], onStack = new Set(), found = [];
  const visit = (v) => {
    order.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!order.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), order.get(w)));
    }
    if (low.get(v) === order.get(v)) {
      const component = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.map((f) => path.relative(src, f)).sort());
    }
  };
  for (const v of edges.keys()) if (!order.has(v)) visit(v);
  return found;
}

test("no import cycles in src", () => {
  const edges = graph();
  assert.ok(edges.size > 30, `${edges.size} sources read`);
  assert.ok([...edges.values()].flat().length > 60, "the imports were read");
  assert.deepStrictEqual(cycles(edges), []);
});

test("the cycle finder finds a cycle", () => {
  const a = path.join(src, "a.ts"), b = path.join(src, "b.ts"), c = path.join(src, "c.ts");
  assert.deepStrictEqual(cycles(new Map([[a, [b]], [b, [a, c]], [c, []]])), [["a.ts", "b.ts"]]);
});
