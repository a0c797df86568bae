import ArgumentParser
import Dispatch
import Foundation
import Switchboard
import SwitchboardServer
import Synchronization

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (the default command).",
        discussion: """
            SIGHUP reloads the manifest; so does any change in its folder. SIGINT and SIGTERM \
            stop accepting connections, let in-flight requests finish, and exit 0.
            """
    )

    @Option(help: ArgumentHelp("The route manifest.", valueName: "manifest"))
    var config: String = "Config/routes.json"

    @Option(help: "The address to listen on (IPv4 or IPv6).")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Worker threads.")
    var threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be between 1 and 256") }
    }

    func run() throws {
        // Signal handling is in place before the server starts (and logs its port), so a
        // signal sent as soon as the port is known is never lost.
        let server = Mutex<SwitchboardServer?>(nil)
        let stopRequested = Atomic<Bool>(false)
        let stopped = DispatchSemaphore(value: 0)
        let signals = DispatchQueue(label: "switchboard.signals")
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
            source.setEventHandler {
                let running = server.withLock { $0 }
                if number == SIGHUP {
                    if let running { printError("switchboard: SIGHUP: \(running.reload())") }
                } else if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
                    printError("switchboard: stopping: finishing in-flight requests")
                    running?.stop()
                    stopped.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        do {
            let started = try SwitchboardServer(
                configuration: .init(manifestPath: config, host: host, port: port, threads: threads),
                log: { printError("switchboard: \($0)") })
            server.withLock { $0 = started }
            // A stop that came while starting found no server to stop.
            if stopRequested.load(ordering: .acquiring) { started.stop() }
        } catch {
            switch error {
            case .manifest(.invalid(let path, let manifestError)):
                Diagnostics.report(path, manifestError.diagnostics, printError)
                throw ExitCode(1)
            default:
                printError("switchboard: \(error)")
                throw ExitCode(2)
            }
        }
        stopped.wait()
    }
}
