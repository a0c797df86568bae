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

    /// `switchboard` started with `arguments`, its standard error read as it comes.
    final class Running {
        let process = Process()
        private let err = Pipe()
        private(set) var log = ""

        init(_ arguments: [String], environment: [String: String]? = nil, executable: URL = CLI.executable,
             in directory: URL? = nil) throws {
            process.executableURL = executable
            if let directory { process.currentDirectoryURL = directory }
            process.arguments = arguments
            // No drain on the SIGTERM that ends a test's server (unless the test sets one).
            process.environment = ["SWITCHBOARD_DRAIN_SECONDS": "0"].merging(environment ?? ProcessInfo.processInfo.environment) { $1 }
            process.standardError = err
            try process.run()
        }

        /// Reads the log until it contains `text` or the process closes it.
        @discardableResult
        func waitFor(_ text: String) -> Bool {
            while !log.contains(text) {
                let data = err.fileHandleForReading.availableData
                if data.isEmpty { return false }
                log += String(decoding: data, as: UTF8.self)
            }
            return true
        }

        /// SIGTERM, then the exit status.
        func stop() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Where this test process writes its temporary files: one directory, removed when
    /// the process exits (a directory per file, left behind, filled /tmp run after run).
    static let temporaryRoot: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-cli-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        atexit { try? FileManager.default.removeItem(at: CLI.temporaryRoot) }
        return root
    }()

    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryFile(_ text: String, name: String = "manifest.json") throws -> String {
        let dir = temporaryRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
