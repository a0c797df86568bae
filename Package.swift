// swift-tools-version:6.3
import PackageDescription

let package = Package(
    name: "Switchboard",
    // The floors of Synchronization's Mutex; what the client's closure uses of the standard
    // library is held to them by Tests/Portability/apple-floors.py (PortabilityTests).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // The command; its target is SwitchboardCLI, so that no two targets, products or
        // folders differ only by case (a Mac's volume would merge them).
        .executable(name: "switchboard", targets: ["SwitchboardCLI"]),
        // For apps and backends: `import SwitchboardKit`, whose main type is SwitchboardClient.
        .library(name: "SwitchboardKit", targets: ["SwitchboardKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // SHA-256 of the canonical manifest (its ETag): BoringSSL's, with the CPU's SHA
        // instructions (docs/benchmarks.md measures it against a portable one).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `swift package generate-documentation --target SwitchboardKit`: the client's DocC
        // catalog (a plugin: nothing of it is linked into an app).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Pure Swift, no Foundation: URL classification and normalization, patterns,
        // the compiled trie, typed params and the linear-time regex engine.
        .target(name: "RouteMatching"),
        // The domain: manifest model and validation, resolution, JSON, canonical bytes.
        .target(name: "Switchboard", dependencies: ["RouteMatching", "SystemSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // What the command line and the server do with manifests beyond resolving: diff,
        // traffic, reports, validation cases, export and import. Not a library product: an
        // app that links the client gets the engine alone.
        .target(name: "SwitchboardTooling", dependencies: ["Switchboard", "RouteMatching", "SystemSupport", "Gzip"]),
        // libmicrohttpd and zlib, reached through shims for what Swift cannot call.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // gzip with zlib: the manifest compressed once per version (the server), traffic
        // logs read in chunks (the tooling). Beside its C library, a home of unsafe pointers.
        .target(name: "Gzip", dependencies: ["CZlib"]),
        // What the domain and the client use on every platform (Linux, Apple's): a lock
        // ThreadSanitizer understands (pthread's) and a byte copy for the JSON writer. No C
        // target, no Linux-only call: `PortabilityTests` holds the client's closure to that.
        .target(name: "SystemSupport"),
        // The system's services only the server needs, on Linux: a folder watcher (inotify),
        // the descriptor limit, returning freed memory and malloc tuning (glibc), the
        // monotonic clock in one call. With SystemSupport, Gzip and MicroHTTPD, the only
        // homes of unsafe pointers.
        .systemLibrary(name: "CServerSystem"),
        .target(name: "ServerSystem", dependencies: ["CServerSystem", "SystemSupport"]),
        // The HTTP daemon: its mechanism (Mechanism/: the daemon, callbacks, requests and
        // responses, the hold loop, event streams) apart from its admission (Admission/:
        // trusted proxies, shares, deadlines, refusals). With SystemSupport, ServerSystem and
        // Gzip, the only home of unsafe pointers, and of every Unmanaged.
        .target(name: "MicroHTTPD", dependencies: ["CMicroHTTPD", "SystemSupport", "ServerSystem"]),
        // The HTTP API, a folder per concern: Endpoints/, the manifest's lifecycle (Manifest/:
        // store, reloader, live updates), request policy (Policy/: limits, expensive work,
        // CORS) and Observability/ (metrics, route hits).
        .target(
            name: "SwitchboardServer",
            dependencies: ["Switchboard", "SwitchboardTooling", "RouteMatching", "MicroHTTPD", "Gzip", "SystemSupport", "ServerSystem", .product(name: "Logging", package: "swift-log")],
            // The route explorer's page, style and script, and the OpenAPI document: files in
            // the repository, bytes in the binary (the Docker image copies the binary alone).
            resources: [
                .embedInCode("Explorer/index.html"), .embedInCode("Explorer/explorer.css"), .embedInCode("Explorer/explorer.js"),
                .embedInCode("OpenAPI/openapi.json"),
            ]
        ),
        // For apps and backends: the manifest kept current from the server (blocking polls,
        // backoff, an atomic cache, a bundled copy) and resolution offline with the same engine.
        .target(name: "SwitchboardKit", dependencies: ["Switchboard", "SystemSupport", .product(name: "Logging", package: "swift-log")]),
        // The command line (`switchboard`): argument parsing and printing; each command's
        // work is in SwitchboardTooling and SwitchboardServer.
        .executableTarget(
            name: "SwitchboardCLI",
            dependencies: [
                "Switchboard",
                "SwitchboardTooling",
                "RouteMatching",
                "SwitchboardServer",
                "SystemSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `swift run -c release --experimental-lto-mode=full switchboard-bench`: resolution and load benchmark.
        // `--client`: the client against a server in the same process.
        .executableTarget(name: "switchboard-bench", dependencies: [
            "Switchboard", "SwitchboardTooling", "SwitchboardServer", "SwitchboardKit", "SystemSupport", "ServerSystem", .product(name: "Logging", package: "swift-log"),
        ]),
        // Shared by the test targets: running the built CLI and reference tools.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "RouteMatchingTests", dependencies: ["RouteMatching", "TestSupport"]),
        // Fixtures are read from the source tree by path, not bundled.
        .testTarget(name: "SwitchboardTests", dependencies: ["Switchboard", "SwitchboardTooling", "TestSupport"], exclude: ["Peers"]),
        .testTarget(name: "CLITests", dependencies: ["Switchboard", "SwitchboardTooling", "RouteMatching", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MicroHTTPDTests", dependencies: ["MicroHTTPD", "SystemSupport", "ServerSystem", "TestSupport"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip", "TestSupport"]),
        .testTarget(name: "ServerTests", dependencies: ["SwitchboardServer", "Switchboard", "SwitchboardTooling", "MicroHTTPD", "SystemSupport", "ServerSystem", "TestSupport"]),
        // The client against the real server; a child process for the kill-while-persisting test.
        .testTarget(name: "ClientTests", dependencies: ["SwitchboardKit", "SwitchboardServer", "Switchboard", "SwitchboardTooling", "MicroHTTPD", "SystemSupport", "TestSupport",
                                                  .product(name: "Logging", package: "swift-log")],
                    exclude: ["Fixtures"]),
        .executableTarget(name: "client-cache-writer", dependencies: ["SwitchboardKit"], path: "Tests/ClientCacheWriter"),
    ],
    swiftLanguageModes: [.v6]
)
