// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Switchboard",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "switchboard", targets: ["switchboard"]),
        .library(name: "Switchboard", targets: ["Switchboard"]),
        .library(name: "RouteMatching", targets: ["RouteMatching"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Pure Swift, no Foundation: URL classification and normalization, patterns,
        // the compiled trie, typed params and the linear-time regex engine.
        .target(name: "RouteMatching"),
        // The domain: manifest model and validation, resolution, JSON, canonical bytes.
        .target(name: "Switchboard", dependencies: ["RouteMatching"]),
        // The command line: argument parsing and printing only.
        .executableTarget(
            name: "switchboard",
            dependencies: [
                "Switchboard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `swift run -c release switchboard-bench`: resolution and load benchmark.
        .executableTarget(name: "switchboard-bench", dependencies: ["Switchboard"]),
        .testTarget(name: "RouteMatchingTests", dependencies: ["RouteMatching"]),
        .testTarget(name: "SwitchboardTests", dependencies: ["Switchboard"]),
        .testTarget(name: "CLITests", dependencies: ["Switchboard"]),
    ],
    swiftLanguageModes: [.v6]
)
