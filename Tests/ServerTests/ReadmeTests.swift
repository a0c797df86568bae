import Foundation
import Testing
import TestSupport

/// Runs the `console runnable` blocks of the README and of `docs/`: each `$ command` in a
/// shell, in a folder holding a copy of `Config/`, with `switchboard` on the PATH and a
/// server of the bundled manifest standing in for 127.0.0.1:8080; its output must be what
/// the document shows (`Date` headers left out, as the README says).
@Suite(.serialized)
struct ReadmeTests {
    struct Step {
        let command: String
        let expected: String
    }

    static let documents: [String] = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(
        atPath: Manifests.root.appendingPathComponent("docs").path)) ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    static func blocks(_ document: String) throws -> [[Step]] {
        let readme = try String(contentsOf: Manifests.root.appendingPathComponent(document), encoding: .utf8)
        var blocks: [[Step]] = []
        var current: [Step]? = nil
        var command: String? = nil
        var output: [String] = []
        func flush() {
            if let c = command { current?.append(Step(command: c, expected: output.joined(separator: "\n"))) }
            command = nil
            output = []
        }
        for line in readme.components(separatedBy: "\n") {
            if current == nil {
                if line == "```console runnable" { current = [] }
                continue
            }
            if line == "```" {
                flush()
                blocks.append(current!)
                current = nil
            } else if line.hasPrefix("$ ") {
                flush()
                command = String(line.dropFirst(2))
            } else if command != nil {
                output.append(line)
            }
        }
        return blocks
    }

    @Test func theREADMEAndThePipelinesGuideHaveRunnableBlocks() throws {
        #expect(try Self.blocks("README.md").count >= 2)
        #expect(try Self.blocks("docs/pipelines.md").count >= 1)
    }

    @Test(arguments: documents)
    func runnableBlocksPrintWhatTheDocumentShows(_ document: String) throws {
        let blocks = try Self.blocks(document)
        guard !blocks.isEmpty else { return }
        _ = try Subprocess.tool("curl", package: "curl")
        let served = try ServeProcessTests.Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        defer { _ = served.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Manifests.root.appendingPathComponent("Config"), to: folder.appendingPathComponent("Config"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = ServeProcessTests.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for block in blocks {
            for step in block {
                let command = step.command.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(served.port)")
                let actual = try Subprocess.bash(command, environment: ["PATH": path], in: folder).stdout
                    .replacingOccurrences(of: "\r\n", with: "\n")
                    .components(separatedBy: "\n").filter { !$0.hasPrefix("Date: ") }.joined(separator: "\n")
                    .trimmingCharacters(in: .newlines)
                #expect(actual == step.expected.trimmingCharacters(in: .newlines), "\(document): $ \(step.command)")
            }
        }
    }
}
