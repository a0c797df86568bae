#!/usr/bin/env python3
"""The TypeScript client on QuickJS (the Python package `quickjs`): a bare ECMAScript
engine with no JIT and no TextEncoder, crypto, Intl or console, the stand-in for Hermes.

  run.py BUNDLE vectors FILE...        every case of each conformance vectors file; exit 1
                                       on any disagreement
  run.py BUNDLE errors FILE            every manifest of a manifest-errors document refused
                                       with exactly its errors; exit 1 otherwise
  run.py BUNDLE start MANIFEST URL N   N timed starts (createClient + a first resolve),
                                       bundled and from a synchronous storage: medians

BUNDLE is test/quickjs/entry.js bundled by esbuild (the tests do it)."""
import json, statistics, sys

import quickjs


def context(bundle):
    ctx = quickjs.Context()
    ctx.set_memory_limit(1 << 30)
    ctx.set_max_stack_size(8 << 20)
    with open(bundle) as f:
        ctx.eval(f.read())
    return ctx


def vectors(bundle, files):
    ctx = context(bundle)
    run = ctx.get("switchboardVectors")
    total_passed = total_failed = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        outcome = json.loads(run(path, text))
        total_passed += outcome["passed"]
        total_failed += outcome["failures"]
        print(f"{path}: {outcome['passed']} passed, {outcome['failures']} failed")
        for d in outcome["first"]:
            print(f"  {d['url']!r} {json.dumps(d['context'])}\n    expected {d['expected'][:300]}\n    got      {d['got'][:300]}")
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


def errors(bundle, path):
    with open(path, encoding="utf-8") as f:
        outcome = json.loads(context(bundle).get("switchboardErrors")(f.read()))
    print(f"{path}: {outcome['cases'] - len(outcome['wrong'])} of {outcome['cases']} refused as they must be")
    for name in outcome["wrong"]:
        print(f"  {name}")
    return 1 if outcome["wrong"] else 0


def start(bundle, manifest, url, rounds):
    with open(manifest, encoding="utf-8") as f:
        text = f.read()
    stored = context(bundle).get("switchboardStoredEntry")(text)
    for label, entry in (("bundled", None), ("storage", stored)):
        times = []
        for _ in range(rounds):
            # A fresh engine each time: an app's first start, nothing compiled or cached.
            ctx = context(bundle)
            outcome = json.loads(ctx.get("switchboardStart")(text, entry, url))
            times.append(outcome["ms"])
        print(f"{label}: median {statistics.median(times):.0f} ms, min {min(times)} ms, max {max(times)} ms "
              f"({outcome['source']}, {outcome['status']})")
    return 0


if __name__ == "__main__":
    bundle, mode = sys.argv[1], sys.argv[2]
    if mode == "vectors":
        sys.exit(vectors(bundle, sys.argv[3:]))
    if mode == "errors":
        sys.exit(errors(bundle, sys.argv[3]))
    if mode == "start":
        sys.exit(start(bundle, sys.argv[3], sys.argv[4], int(sys.argv[5])))
    sys.exit(f"unknown mode {mode}")
