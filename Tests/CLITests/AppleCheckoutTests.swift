import Foundation
import Testing
import TestSupport

/// The package as Apple's tools see it, checked on Linux: a Mac's default volume and the
/// folder where Xcode checks out package dependencies are case-insensitive, so two paths
/// that differ only by case become one folder; an app's files import `os` (whose `Logger`
/// they mean) beside the client.
struct AppleCheckoutTests {
    /// Names that differ only by case: each group of spellings that one lowercased name has.
    static func caseCollisions(_ names: [String]) -> [[String]] {
        Dictionary(grouping: Set(names), by: { $0.lowercased() }).values.filter { $0.count > 1 }.map { $0.sorted() }
    }

    /// Every path of the repository, and every folder on the way to one.
    static func pathsAndFolders(_ files: [String]) -> [String] {
        var all = Set<String>()
        for file in files {
            var parts = file.split(separator: "/")
            while !parts.isEmpty {
                all.insert(parts.joined(separator: "/"))
                parts.removeLast()
            }
        }
        return Array(all)
    }

    /// The files a checkout of this tree would hold: those git tracks, and new ones it does
    /// not ignore (so that a change is checked before it is committed).
    static func trackedFiles() throws -> [String] {
        let git = try Subprocess.tool("git", package: "git")
        let run = try Subprocess.run(git, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        try #require(run.status == 0, "\(run.stderr)")
        let root = Subprocess.packageRoot.path
        return run.stdout.split(separator: "\0").map(String.init)
            .filter { FileManager.default.fileExists(atPath: root + "/" + $0) }
    }

    @Test func noTwoPathsTargetsOrProductsDifferOnlyByCase() throws {
        let files = try Self.trackedFiles()
        #expect(files.contains("Sources/SwitchboardKit/SwitchboardClient.swift"))
        #expect(Self.caseCollisions(Self.pathsAndFolders(files)) == [])
        let swift = try Subprocess.tool("swift", package: "the Swift toolchain")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let dump = try Subprocess.run(swift, ["package", "dump-package", "--scratch-path", scratch.path])
        try #require(dump.status == 0, "\(dump.stderr)")
        let package = try #require(JSONSerialization.jsonObject(with: dump.stdoutData) as? [String: Any])
        let targets = (package["targets"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        let products = (package["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(targets.contains("SwitchboardKit") && targets.contains("SwitchboardCLI"), "\(targets)")
        #expect(products.contains("switchboard") && products.contains("SwitchboardKit"), "\(products)")
        #expect(Self.caseCollisions(targets) == [], "\(targets)")
        #expect(Self.caseCollisions(products) == [], "\(products)")
    }

    /// The check finds what it must: the two folders this package once had.
    @Test func theCollisionCheckFindsFoldersThatDifferOnlyByCase() {
        let paths = Self.pathsAndFolders(["Sources/Switchboard/A.swift", "Sources/switchboard/B.swift", "README.md"])
        #expect(Self.caseCollisions(paths) == [["Sources/Switchboard", "Sources/switchboard"]])
    }

    /// Copies `files` from `root` into `destination` as a case-insensitive volume stores a
    /// checkout: a folder or file whose name differs only by case from one already there is
    /// that one (git writes into it, or over it).
    static func checkOutCaseInsensitively(_ files: [String], from root: URL, into destination: URL) throws {
        var spelling: [String: String] = [:]  // lowercased path -> the first spelling written
        for file in files {
            var resolved = ""
            for part in file.split(separator: "/") {
                let candidate = resolved.isEmpty ? String(part) : resolved + "/" + part
                resolved = spelling[candidate.lowercased(), default: candidate]
                spelling[candidate.lowercased()] = resolved
            }
            let target = destination.appendingPathComponent(resolved)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: root.appendingPathComponent(file), to: target)
        }
    }

    @Test func theCheckoutMergesFoldersAsACaseInsensitiveVolumeDoes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("source"), merged = root.appendingPathComponent("merged")
        for (path, text) in [("Sources/Switchboard/A.swift", "a"), ("Sources/switchboard/B.swift", "b"), ("Sources/switchboard/a.swift", "a2")] {
            let url = source.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try Self.checkOutCaseInsensitively(["Sources/Switchboard/A.swift", "Sources/switchboard/B.swift", "Sources/switchboard/a.swift"],
                                           from: source, into: merged)
        let folder = merged.appendingPathComponent("Sources/Switchboard")
        #expect(try FileManager.default.contentsOfDirectory(atPath: merged.appendingPathComponent("Sources").path) == ["Switchboard"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["A.swift", "B.swift"])
        #expect(try String(contentsOf: folder.appendingPathComponent("A.swift"), encoding: .utf8) == "a2")
    }

    /// An app as Xcode builds it: the package checked out as a case-insensitive volume
    /// holds it, a dependency of an app package whose own module stands in for `os` (it
    /// exports `Logger(subsystem:category:)`), and an app file that imports both, makes an
    /// `os` logger and a client. `swift build` builds the client's target from that checkout.
    @Test(.timeLimit(.minutes(20)))
    func anAppBuildsTheClientFromACaseInsensitiveCheckoutBesideOsLogger() async throws {
        let swift = try Subprocess.tool("swift", package: "the Swift toolchain")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apple-checkout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let checkout = root.appendingPathComponent("switchboard")
        try Self.checkOutCaseInsensitively(try Self.trackedFiles(), from: Subprocess.packageRoot, into: checkout)
        let app = root.appendingPathComponent("App")
        let files: [(String, String)] = [
            ("Package.swift", """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "App",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: "../switchboard")],
                targets: [
                    // What Apple's SDKs export as `os`, as far as an app's logging goes.
                    .target(name: "os"),
                    .executableTarget(name: "App", dependencies: ["os", .product(name: "SwitchboardKit", package: "switchboard")]),
                ]
            )
            """),
            ("Sources/os/Logger.swift", """
            public struct Logger: Sendable {
                public let subsystem: String, category: String
                public init(subsystem: String, category: String) { self.subsystem = subsystem; self.category = category }
                public func info(_ message: String) { print("[\\(subsystem)/\\(category)] \\(message)") }
            }
            """),
            ("Sources/App/main.swift", """
            import Foundation
            import os
            import SwitchboardKit

            let log = Logger(subsystem: "com.example.app", category: "routing")
            let client = SwitchboardClient(configuration: .init(
                server: URL(string: "https://routes.example.com")!,
                bundled: .data(Data(#"{"version": 1, "routes": [{"name": "home", "pattern": "/", "destination": "Home"}]}"#.utf8)),
                context: try ResolveContext(platform: "ios", appVersion: "7.2.0")))
            let failure: ClientFailure? = nil
            log.info("launched into \\(client.resolve("/")?.result.destination ?? "nothing") \\(failure?.description ?? "")")
            """),
        ]
        for (path, text) in files {
            let url = app.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let build = try await Subprocess.runOffThePool(swift, ["build", "--product", "App"], in: app, yielding: true)
        try #require(build.status == 0, "\(build.stdout.suffix(3000))\n\(build.stderr.suffix(3000))")
        let bin = try Subprocess.run(swift, ["build", "--show-bin-path"], in: app)
        let run = try Subprocess.run(URL(fileURLWithPath: bin.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).appendingPathComponent("App"), [], in: app)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "[com.example.app/routing] launched into Home \n", "\(run.stdout)")
    }

    /// `ResolveContext` has no `none`: `.none` where a context is expected would read as
    /// `Optional.none`, "the configured context", silently.
    @Test func theContextHasNoNoneMember() throws {
        let swiftc = try Subprocess.tool("swiftc", package: "the Swift toolchain")
        let modules = Subprocess.switchboard.deletingLastPathComponent().appendingPathComponent("Modules")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func typecheck(_ source: String) throws -> Subprocess.Output {
            let file = folder.appendingPathComponent("check.swift")
            try Data(source.utf8).write(to: file)
            return try Subprocess.run(swiftc, ["-typecheck", "-swift-version", "6", "-I", modules.path, file.path])
        }
        let none = try typecheck("import SwitchboardKit\nlet context: ResolveContext = .none\n")
        #expect(none.status != 0)
        #expect(none.stderr.contains("type 'ResolveContext' has no member 'none'"), "\(none.stderr)")
        let empty = try typecheck("import SwitchboardKit\nlet context: ResolveContext = .empty\n")
        #expect(empty.status == 0, "\(empty.stderr)")
    }
}
