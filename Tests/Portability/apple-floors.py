#!/usr/bin/env python3
"""What the compiler for Apple's platforms would say of the client's closure, read on Linux.

No Apple toolchain runs here, so this reads what it would read:

1. The closure of SwitchboardKit (its targets in Package.swift, through their target
   dependencies) holds no C or system-library target, no `import Glibc` (or other Linux-only
   module) outside an `#if` with a Darwin branch, and no call of a Linux-only function.
2. Every declaration of the standard library (Swift, _Concurrency, Synchronization,
   _StringProcessing) the closure's sources use is available at the floors Package.swift
   declares for Apple's platforms: the sources are type-checked with `swiftc -dump-ast
   -dump-ast-format json`, every declaration they refer to is looked up in the symbol
   graph the toolchain's .swiftinterface files give (`swift-symbolgraph-extract`), whose
   availability is Apple's, and a use inside `if #available(...)` is held against that
   branch's versions instead.

Foundation on Linux is swift-corelibs-foundation, whose interface carries no Apple
availability: the Foundation declarations the closure uses are listed, and each is held
against FOUNDATION_FLOORS below (Apple's documented availability, written down here).

Usage: apple-floors.py [--build .build/debug] [--probe FILE]  (after `swift build`). Exit 1 on
a finding. `--probe FILE` checks that one file alone (Tests/Portability/probe.swift holds
what must be found).
"""
import json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[sys.argv.index("--build") + 1] if "--build" in sys.argv else os.path.join(ROOT, ".build", "debug")
PRODUCT_TARGET = "SwitchboardKit"
# What SwiftPM passes as -package-name for the root package (the modules' `package`
# declarations are visible under it only): its identity, the folder's name lowercased with
# what is not a letter or digit made `_`, as the build's own commands show it.
def package_name():
    try:
        with open(os.path.join(os.path.dirname(BUILD.rstrip("/")), "debug.yaml")) as f:
            for line in f:
                if "-module-name\",\"SwitchboardKit\"" in line:
                    m = re.search(r'"-package-name","([^"]+)"', line)
                    if m:
                        return m.group(1)
    except OSError:
        pass
    return re.sub(r"[^a-z0-9]", "_", os.path.basename(ROOT).lower())


PACKAGE_NAME = package_name()
LINUX_ONLY_MODULES = {"Glibc", "Musl", "FoundationNetworking", "CSystemSupport", "ServerSystem"}
LINUX_ONLY_CALLS = ["inotify_init", "inotify_init1", "inotify_add_watch", "malloc_trim", "mallopt", "malloc_usable_size",
                    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "eventfd", "signalfd", "timerfd_create",
                    "prctl", "sched_getaffinity", "sched_setaffinity", "sendfile", "accept4", "pipe2", "memfd_create",
                    "getrandom", "syscall"]
STDLIB_MODULES = ["Swift", "Synchronization"]
# Apple's availability of the Foundation API the client uses (developer.apple.com).
FOUNDATION_FLOORS = {
    # FileHandle's throwing API.
    "write(contentsOf:)": {"macOS": (10, 15, 4), "iOS": (13, 4), "tvOS": (13, 4), "watchOS": (6, 2), "visionOS": (1, 0)},
    "synchronize()": {"macOS": (10, 15), "iOS": (13, 0), "tvOS": (13, 0), "watchOS": (6, 0), "visionOS": (1, 0)},
    "close()": {"macOS": (10, 15), "iOS": (13, 0), "tvOS": (13, 0), "watchOS": (6, 0), "visionOS": (1, 0)},
}


def package_description():
    """Targets and platforms read from Package.swift's text: `swift package describe` would
    wait for the lock of the build folder that `swift test` holds while this runs."""
    with open(os.path.join(ROOT, "Package.swift")) as f:
        text = f.read()
    targets = []
    for m in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\(", text):
        depth, i = 0, m.end() - 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        body = text[m.end():i]
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        path = re.search(r'path:\s*"([^"]+)"', body)
        path = path.group(1) if path else os.path.join("Sources" if m.group(1) != "testTarget" else "Tests", name)
        deps = re.search(r"dependencies:\s*\[(.*?)\]", body, re.S)
        local = re.findall(r'(?<![\w:])"([^"]+)"', re.sub(r"\.product\([^)]*\)", "", deps.group(1))) if deps else []
        products = re.findall(r'\.product\(name:\s*"([^"]+)"', deps.group(1)) if deps else []
        folder = os.path.join(ROOT, path)
        files = [os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs]
        c = any(f.endswith((".c", ".h", ".cc", ".modulemap")) for f in files)
        kind = "system-library" if m.group(1) == "systemLibrary" else "C" if c else "Swift"
        targets.append({"name": name, "path": path, "kind": kind, "target_dependencies": local, "products": products,
                        "sources": sorted(f for f in files if f.endswith(".swift"))})
    platforms = re.findall(r"\.(macOS|iOS|tvOS|watchOS|visionOS)\(\.v(\d+)(?:_(\d+))?\)", re.search(r"platforms:\s*\[(.*?)\]", text, re.S).group(1))
    return {"targets": targets, "platforms": [{"name": n.lower(), "version": a + "." + (b or "0")} for n, a, b in platforms]}


def floors(description):
    names = {"macos": "macOS", "ios": "iOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS"}
    result = {}
    for platform in description.get("platforms", []):
        name = names.get(platform["name"])
        if name:
            result[name] = tuple(int(p) for p in platform["version"].split("."))
    return result


def closure(description):
    targets = {t["name"]: t for t in description["targets"]}
    seen, stack = [], [PRODUCT_TARGET]
    while stack:
        name = stack.pop()
        if name in seen or name not in targets:
            continue
        seen.append(name)
        stack.extend(targets[name].get("target_dependencies", []))
    return [targets[n] for n in seen]


def version(v):
    return tuple(int(p) for p in str(v).split(".")) if v not in (None, "*") else ()


def stdlib_availability():
    """USR -> {platform: (major, minor, patch)} from the toolchain's symbol graphs."""
    folder = tempfile.mkdtemp(prefix="symbolgraph-")
    table = {}
    for module in STDLIB_MODULES:
        subprocess.run(["swift-symbolgraph-extract", "-module-name", module, "-target", "x86_64-unknown-linux-gnu",
                        "-output-dir", folder, "-minimum-access-level", "public"], check=True, capture_output=True)
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            introduced = {}
            for a in symbol.get("availability") or []:
                if "introduced" in a and a.get("domain") in ("macOS", "iOS", "tvOS", "watchOS", "visionOS"):
                    i = a["introduced"]
                    introduced[a["domain"]] = (i.get("major", 0), i.get("minor", 0), i.get("patch", 0))
            if introduced:
                table[symbol["identifier"]["precise"]] = (symbol["names"]["title"], introduced)
    return table


def module_ast(target):
    files = sorted(os.path.join(ROOT, target["path"], s) for s in target["sources"])
    args = ["swiftc", "-dump-ast", "-dump-ast-format", "json", "-parse-as-library", "-module-name", target["name"],
            "-swift-version", "6", "-package-name", PACKAGE_NAME, "-I", os.path.join(BUILD, "Modules")] + files
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    text = run.stdout + run.stderr
    decoder, index, asts = json.JSONDecoder(), 0, []
    while True:
        start = text.find('{"_kind":"source_file"', index)
        if start < 0:
            break
        value, index = decoder.raw_decode(text, start)
        asts.append(value)
    if len(asts) != len(files):
        raise SystemExit(f"{target['name']}: swiftc -dump-ast gave {len(asts)} files of {len(files)}:\n{text[-3000:]}")
    return asts


def line_of(path, offset):
    with open(path, "rb") as f:
        return f.read(offset).count(b"\n") + 1


def uses(ast):
    """(usr, offset, guards) for each declaration referred to; guards: the #available versions in force."""
    found = []

    def walk(x, guards, offset):
        if isinstance(x, dict):
            r = x.get("range")
            if isinstance(r, dict) and isinstance(r.get("start"), int):
                offset = r["start"]
            if x.get("_kind") == "if_stmt":
                versions = {}
                for c in x.get("conditions", []):
                    if isinstance(c, dict) and c.get("_kind") == "#available":
                        for q in c.get("queries", []):
                            if q.get("domain") not in (None, "*"):
                                versions[q["domain"]] = version(q.get("version"))
                if versions:
                    for key, value in x.items():
                        walk(value, {**guards, **versions} if key == "then_stmt" else guards, offset)
                    return
            usr = x.get("decl_usr")
            if isinstance(usr, str) and usr.startswith("s:"):
                found.append((usr, offset, guards))
            for value in x.values():
                walk(value, guards, offset)
        elif isinstance(x, list):
            for value in x:
                walk(value, guards, offset)

    walk(ast, {}, 0)
    return found


def main():
    description = package_description()
    floor = floors(description)
    findings = []
    needed = {"macOS", "iOS", "tvOS", "watchOS", "visionOS"}
    if set(floor) != needed:
        findings.append(f"Package.swift declares floors for {sorted(floor)}; the client needs all of {sorted(needed)}")
    targets = closure(description)
    if "--probe" in sys.argv:
        # The checker's own test: one file as the closure, every finding expected.
        probe = os.path.relpath(sys.argv[sys.argv.index("--probe") + 1], ROOT)
        targets = [{"name": "Probe", "path": os.path.dirname(probe), "kind": "Swift", "target_dependencies": [], "products": [],
                    "sources": [os.path.basename(probe)]}]
    if "--probe" not in sys.argv and ([t["name"] for t in targets][:1] != [PRODUCT_TARGET] or len(targets) < 3):
        findings.append(f"Package.swift was not read as expected: the client's closure came out as {[t['name'] for t in targets]}")
    for t in targets:
        if t["kind"] != "Swift":
            findings.append(f"target {t['name']} ({t['kind']}) is in the client's closure and is not a Swift target")
    for t in targets:
        for source in t["sources"]:
            path = os.path.join(ROOT, t["path"], source)
            with open(path) as f:
                text = f.read()
            depth_guarded = []
            for number, line in enumerate(text.split("\n"), 1):
                stripped = line.strip()
                if stripped.startswith("#if"):
                    # A branch only Linux takes: an #if that names Darwin beside it, or asks
                    # for a Linux-only module by name (false on Apple's platforms).
                    depth_guarded.append("Darwin" in stripped or "os(Linux)" in stripped
                                         or any(f"canImport({m})" in stripped for m in LINUX_ONLY_MODULES))
                elif stripped.startswith("#endif") and depth_guarded:
                    depth_guarded.pop()
                m = re.match(r"(?:@\w+\s+)*import\s+(?:\w+\s+)?(\w+)", stripped)
                if m and m.group(1) in LINUX_ONLY_MODULES and not any(depth_guarded):
                    findings.append(f"{t['path']}/{source}:{number}: import {m.group(1)} outside an #if with a Darwin branch")
                code = stripped.split("//")[0]
                for call in LINUX_ONLY_CALLS:
                    if re.search(rf"\b{call}\s*\(", code):
                        findings.append(f"{t['path']}/{source}:{number}: calls {call}, which Apple's platforms do not have")
    table = stdlib_availability()
    checked = 0
    for t in targets:
        for ast in module_ast(t):
            path = ast["filename"] if os.path.isabs(ast["filename"]) else os.path.join(ROOT, ast["filename"])
            for usr, offset, guards in uses(ast):
                if usr not in table:
                    continue
                checked += 1
                title, introduced = table[usr]
                short = []
                for platform, minimum in sorted(floor.items()):
                    needs = introduced.get(platform)
                    allowed = guards.get(platform, minimum)
                    if needs and needs > tuple(allowed) + (0,) * (3 - len(allowed)):
                        short.append(f"{platform} {'.'.join(map(str, needs[:2]))} (floor {'.'.join(map(str, minimum))})")
                if short:
                    findings.append(f"{os.path.relpath(path, ROOT)}:{line_of(path, offset)}: {title} ({usr}) needs {', '.join(short)}")
    for name, introduced in FOUNDATION_FLOORS.items():
        for platform, minimum in floor.items():
            if introduced.get(platform, ()) > minimum + (0,) * (3 - len(minimum)):
                findings.append(f"Foundation {name} needs {platform} {introduced[platform]}, the floor is {minimum}")
    unique = sorted(set(findings))
    for finding in unique:
        print(finding)
    products = sorted({p for t in targets for p in t["products"]})
    shown = ", ".join(k + " " + ".".join(map(str, v)) for k, v in sorted(floor.items()))
    print(f"{len(targets)} targets ({', '.join(t['name'] for t in targets)}; packages' products, which build on Apple's platforms "
          f"by their own support: {', '.join(products)}), {checked} uses of versioned standard-library declarations checked, "
          f"floors {shown}: {len(unique)} findings")
    return 1 if unique else 0


if __name__ == "__main__":
    sys.exit(main())
