import Foundation

/// Runs programs from the tests, to completion: the built `switchboard` and the tools
/// tests compare against (bash, gzip, node, python3).
public enum Subprocess {
    public struct Output: Sendable {
        public let status: Int32
        public let stdoutData: Data
        public let stderr: String
        public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }

    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `switchboard` executable built beside the test bundle.
    public static let switchboard: URL = {
        let nextToTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("switchboard")
        if FileManager.default.isExecutableFile(atPath: nextToTests.path) { return nextToTests }
        return packageRoot.appendingPathComponent(".build/debug/switchboard")
    }()

    /// Runs `executable` with `arguments`, feeding it `stdin` (from another thread, so a
    /// large input cannot deadlock against its output), and waits for it to exit.
    /// `environment` entries are added to this process's environment.
    public static func run(_ executable: URL, _ arguments: [String], stdin: Data = Data(),
                           environment: [String: String] = [:], in directory: URL = packageRoot) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdoutData: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `command` with bash.
    public static func bash(_ command: String, environment: [String: String] = [:], in directory: URL = packageRoot) throws -> Output {
        try run(URL(fileURLWithPath: "/bin/bash"), ["-c", command], environment: environment, in: directory)
    }
}
