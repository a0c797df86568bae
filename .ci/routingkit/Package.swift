// swift-tools-version:6.0
// For scale: Vapor's RoutingKit trie on the route table and URL mix of switchboard-bench,
// timed the same way, lookups only (the path split on "/", no decoding, no JSON).
// Run: .ci/bench-routingkit (builds this package in release and runs it).
import PackageDescription

let package = Package(
    name: "routingkit-bench",
    dependencies: [.package(url: "https://github.com/vapor/routing-kit.git", exact: "4.9.3")],
    targets: [
        .executableTarget(name: "routingkit-bench", dependencies: [.product(name: "RoutingKit", package: "routing-kit")]),
    ]
)
