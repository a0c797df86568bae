import Foundation

import TestSupport

/// Runs the built `switchboard` executable as a process.
enum CLI {
    typealias Output = Subprocess.Output

    static let packageRoot = Subprocess.packageRoot
    static let executable = Subprocess.switchboard

    static func run(_ arguments: [String], stdin: String? = nil, in directory: URL = packageRoot) throws -> Output {
        try Subprocess.run(executable, arguments, stdin: Data((stdin ?? "").utf8), in: directory)
    }

    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryFile(_ text: String, name: String = "manifest.json") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
