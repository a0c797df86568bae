import Foundation
import Testing
import TestSupport

/// What can be checked of the Dockerfile without a Docker engine: the runtime stage
/// installs every shared library the binary needs, and its entrypoint starts the server.
@Suite(.serialized)
struct DeploymentTests {
    static let dockerfile = (try? String(contentsOf: CLI.packageRoot.appendingPathComponent("Dockerfile"), encoding: .utf8)) ?? ""

    /// The packages the last stage installs with apt-get.
    static var runtimePackages: [String] {
        let runtime = dockerfile.components(separatedBy: "\nFROM ").last ?? ""
        let flat = runtime.replacingOccurrences(of: "\\\n", with: " ")
        guard let install = flat.range(of: "--no-install-recommends") else { return [] }
        return flat[install.upperBound...].split(separator: " ").prefix { $0 != "&&" && !$0.contains("\n") }.map(String.init)
    }

    static func shell(_ command: String) throws -> String {
        try Subprocess.bash(command).stdout
    }

    /// The build stage's `swift build` flags (`-c release --static-swift-stdlib ...`).
    static var buildFlags: [String] {
        let flat = dockerfile.replacingOccurrences(of: "\\\n", with: " ")
        guard let build = flat.range(of: "RUN swift build ") else { return [] }
        return flat[build.upperBound...].split(separator: " ").prefix { $0 != "&&" && !$0.contains("\n") }.map(String.init)
    }

    /// Every shared library `binary` loads (ldd) comes from a package the runtime stage
    /// installs or depends on; the Swift runtime's own count only when `swiftRuntime` is
    /// linked dynamically (a local debug build).
    static func expectRuntimeStageProvidesLibraries(of binary: URL, swiftRuntimeLinked: Bool) throws {
        let packages = Self.runtimePackages
        #expect(packages.contains("libmicrohttpd12"))
        let lines = try Self.shell("ldd '\(binary.path)'").split(separator: "\n")
        if !swiftRuntimeLinked {
            #expect(!lines.contains { $0.contains("libswiftCore") || $0.contains("libFoundation") }, "\(lines)")
        }
        let libraries = lines.compactMap { line -> String? in
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[1] == "=>", !parts[2].contains("/swift/") else { return nil }
            return String(parts[2])
        }
        #expect(libraries.contains { $0.contains("libmicrohttpd") })
        let closure = Set(try Self.shell("apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances --no-pre-depends \(packages.joined(separator: " ")) libc6 libgcc-s1")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "Depends: ", with: "") }
            .map { $0.split(separator: ":").first.map(String.init) ?? $0 })
        for library in libraries {
            let owner = try Self.shell("dpkg -S '\(library)' 2>/dev/null || dpkg -S '/usr\(library)' 2>/dev/null || dpkg -S \"$(readlink -f '\(library)')\"")
                .split(separator: ":").first.map(String.init) ?? ""
            #expect(!owner.isEmpty, "no package owns \(library)")
            #expect(closure.contains(owner), "\(library) comes from \(owner), which the runtime stage does not install")
        }
    }

    @Test func theRuntimeStageProvidesEverySharedLibrary() throws {
        try Self.expectRuntimeStageProvidesLibraries(of: CLI.executable, swiftRuntimeLinked: true)
    }

    /// The binary the image ships, built exactly as the Dockerfile's build stage does
    /// (`--static-swift-stdlib` links FoundationNetworking's libcurl, which needs
    /// libcurl4-openssl-dev), in a scratch folder of its own: its libraries all come from
    /// the runtime stage's packages.
    @Test func theStaticBuildOfTheDockerfileRunsOnTheRuntimeStage() async throws {
        let flags = Self.buildFlags
        #expect(flags.contains("--static-swift-stdlib"), "\(flags)")
        let scratch = CLI.packageRoot.appendingPathComponent(".build-static")
        let swift = try Subprocess.tool("swift", package: "the Swift toolchain")
        let build = try await Subprocess.runOffThePool(swift, ["build"] + flags + ["--scratch-path", scratch.path], yielding: true)
        try #require(build.status == 0, "swift build \(flags.joined(separator: " ")) failed:\n\(build.stdout.suffix(3000))\n\(build.stderr.suffix(2000))")
        let bin = try Subprocess.run(swift, ["build"] + flags + ["--scratch-path", scratch.path, "--show-bin-path"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.expectRuntimeStageProvidesLibraries(of: URL(fileURLWithPath: bin).appendingPathComponent("switchboard"), swiftRuntimeLinked: false)
    }

    /// What the README serves, the image ships and `.ci` measures is one build: every
    /// release build there is link-time optimized (a build without it runs ~7% more
    /// instructions in a resolve's own work, so a benchmark of it would measure another
    /// binary).
    @Test func everyReleaseBuildIsLinkTimeOptimized() throws {
        let mode = "--experimental-lto-mode=full"
        #expect(Self.buildFlags.contains(mode), "\(Self.buildFlags)")
        for file in ["README.md", "Dockerfile", ".ci/run", ".ci/soak", ".ci/bench-http", ".ci/bench-live", ".ci/bench-client", ".ci/bench-routingkit"] {
            let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(file), encoding: .utf8)
            // A shell line (`-c release --experimental-lto-mode=full`) or a Python list.
            var builds = 0
            for (release, next) in [("-c release", " \(mode)"), ("\"-c\", \"release\"", ", \"\(mode)\"")] {
                var rest = text[...]
                while let found = rest.range(of: release) {
                    builds += 1
                    #expect(rest[found.upperBound...].hasPrefix(next), "\(file): a release build without \(mode)")
                    rest = rest[found.upperBound...]
                }
            }
            #expect(builds > 0, "\(file) builds nothing in release")
        }
    }

    /// The toolchain the package names is the one that builds it: `swift-tools-version`,
    /// the README's command, the Dockerfile's image, the Xcode docs/clients.md asks for and
    /// the compiler these tests were built with are one version (Swift 6.3, Xcode 26.4).
    @Test func theDeclaredDocumentedAndBuiltToolchainsAgree() throws {
        func read(_ path: String) -> String {
            (try? String(contentsOf: CLI.packageRoot.appendingPathComponent(path), encoding: .utf8)) ?? ""
        }
        let declared = read("Package.swift").firstMatch(of: /^\/\/ swift-tools-version:(\d+\.\d+)\n/).map { String($0.1) }
        #expect(declared == "6.3")
        #expect(read("README.md").contains("with a Swift 6.3 toolchain"))
        #expect(Self.dockerfile.contains("FROM swift:6.3-bookworm AS build"))
        #expect(!Self.dockerfile.contains("FROM swift:6.2"))
        #expect(read("docs/clients.md").contains("Swift 6.3: Xcode 26.4 or later"))
        #expect(read("docs/operations.md").contains("a Swift 6.3 image"))
        #if compiler(>=6.3) && !compiler(>=6.4)
        let built = "6.3"
        #else
        let built = "another"
        #endif
        #expect(built == declared, "the tests were built by Swift \(built), the package declares \(declared ?? "nothing")")
    }

    @Test func theEntrypointStartsTheServer() throws {
        let entrypoint = try #require(Self.dockerfile.split(separator: "\n").first { $0.hasPrefix("ENTRYPOINT ") })
        let arguments = try #require(try JSONSerialization.jsonObject(with: Data(entrypoint.dropFirst("ENTRYPOINT ".count).utf8)) as? [String])
        #expect(arguments.first == "switchboard")
        let env = try #require(Self.dockerfile.split(separator: "\n").first { $0.hasPrefix("ENV ") })
        var environment = ProcessInfo.processInfo.environment
        for pair in env.dropFirst(4).split(separator: " ") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            environment[String(kv[0])] = String(kv[1])
        }
        #expect(environment["SWITCHBOARD_HOST"] == "0.0.0.0")
        // The image's manifest path and port, swapped for this checkout's and a free port.
        environment["SWITCHBOARD_CONFIG"] = CLI.packageRoot.appendingPathComponent("Config/routes.json").path
        environment["SWITCHBOARD_PORT"] = "0"
        let served = try CLI.Running(Array(arguments.dropFirst()), environment: environment)
        #expect(served.waitFor("serving on 0.0.0.0:"), "\(served.log)")
        #expect(served.stop() == 0)
    }
}
