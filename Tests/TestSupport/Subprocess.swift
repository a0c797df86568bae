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

    /// A program a test needs is not installed.
    public struct ToolMissing: Error, CustomStringConvertible {
        public let tool: String
        public let package: String
        public var description: String {
            "\(tool) is not installed, and this test needs it: `bash .ci/install --test` installs it (\(package))"
        }
    }

    /// `name` found on the PATH, or ``ToolMissing`` naming what installs it, so a test
    /// that needs an outside tool fails alone and says why.
    public static func tool(_ name: String, package: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ToolMissing(tool: name, package: "Debian package \(package)")
    }

    /// The Python of the tests' virtual environment (`.build/venv`, made by
    /// `.ci/install --test` with the packages of `.ci/pip-packages`).
    public static func python() throws -> URL {
        let venv = packageRoot.appendingPathComponent(".build/venv/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: venv.path) else {
            throw ToolMissing(tool: ".build/venv/bin/python3", package: "a virtual environment with .ci/pip-packages")
        }
        return venv
    }

    /// A child that exits before reading all its input must fail one test, not kill the
    /// test process with SIGPIPE: ignored once, before the first child starts.
    private static let brokenPipesIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

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
        Self.brokenPipesIgnored
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
            // A child that exits early closes the pipe: EPIPE, not a crash.
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let outData = out.fileHandleForReading.readAll()
        let errData = err.fileHandleForReading.readAll()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdoutData: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// ``run(_:_:stdin:environment:in:)`` on a thread of its own, awaited: a long child (a
    /// build of minutes) holds no thread of the pool the tests run on, which on 2 cores has
    /// two, and which the client tests' timers and URLSession need meanwhile.
    /// `yielding`: at the lowest CPU priority (`nice -n 19`), for a build of minutes that
    /// would otherwise take both cores from the tests that measure time beside it.
    public static func runOffThePool(_ executable: URL, _ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:],
                                     in directory: URL = packageRoot, yielding: Bool = false) async throws -> Output {
        let (command, all) = yielding ? (URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "19", executable.path] + arguments) : (executable, arguments)
        return try await offThePool { try run(command, all, stdin: stdin, environment: environment, in: directory) }
    }

    /// `work` on a thread of its own, awaited. The tests share one pool of as many threads
    /// as cores (two here): a test that holds its thread for long (a child process, tens
    /// of seconds of computation) leaves the other tests' timers, servers' handlers and
    /// URLSession's continuations without one, and a client test that waits for an answer
    /// fails for want of a thread, not of an answer. `work` returns what the test then
    /// checks: expectations belong on the test's own task.
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Runs `command` with bash.
    public static func bash(_ command: String, environment: [String: String] = [:], in directory: URL = packageRoot) throws -> Output {
        try run(URL(fileURLWithPath: "/bin/bash"), ["-c", command], environment: environment, in: directory)
    }
}
