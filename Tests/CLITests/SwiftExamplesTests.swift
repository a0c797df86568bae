import Foundation
import Testing
import TestSupport

/// The Swift examples of the README, docs/clients.md and the client's DocC articles compile against the built
/// `SwitchboardKit` with `import SwitchboardKit` (and Foundation) alone: each block is
/// type-checked as a file of its own with the toolchain's `swiftc`. A block that imports
/// SwiftUI or UIKit (an app's `App` or delegate) is left out: neither exists on Linux.
struct SwiftExamplesTests {
    static func blocks(_ file: String) throws -> [String] {
        let text = try String(contentsOf: Subprocess.packageRoot.appendingPathComponent(file), encoding: .utf8)
        var blocks: [String] = [], current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = [] } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test(arguments: ["README.md", "docs/clients.md", "Sources/SwitchboardKit/SwitchboardKit.docc/SwitchboardKit.md",
                      "Sources/SwitchboardKit/SwitchboardKit.docc/GettingStarted.md", "Sources/SwitchboardKit/SwitchboardKit.docc/Lifecycle.md"])
    func theSwiftExamplesCompile(_ file: String) async throws {
        let swiftc = try Subprocess.tool("swiftc", package: "the Swift toolchain")
        let examples = try Self.blocks(file)
        #expect(!examples.isEmpty, "no Swift example in \(file)")
        let modules = Subprocess.switchboard.deletingLastPathComponent().appendingPathComponent("Modules")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (i, example) in examples.enumerated() {
            #expect(example.contains("import SwitchboardKit"), "\(file) example \(i + 1) does not import SwitchboardKit")
            if example.contains("import SwiftUI") || example.contains("import UIKit") { continue }
            let source = folder.appendingPathComponent("example\(i + 1).swift")
            try example.write(to: source, atomically: true, encoding: .utf8)
            let run = try await Subprocess.runOffThePool(swiftc, ["-typecheck", "-swift-version", "6", "-I", modules.path, source.path])
            #expect(run.status == 0, "\(file) example \(i + 1) does not compile:\n\(run.stderr)\n\(example)")
        }
    }
}
