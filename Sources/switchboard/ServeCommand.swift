import ArgumentParser
import Dispatch
import Foundation
import Switchboard
import SwitchboardServer

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
        let server: SwitchboardServer
        do {
            server = try SwitchboardServer(
                configuration: .init(manifestPath: config, host: host, port: port, threads: threads),
                log: { printError("switchboard: \($0)") })
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
        let stopped = DispatchSemaphore(value: 0)
        let signals = DispatchQueue(label: "switchboard.signals")
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
            source.setEventHandler {
                if number == SIGHUP {
                    printError("switchboard: SIGHUP: \(server.reload())")
                } else {
                    printError("switchboard: stopping: finishing in-flight requests")
                    server.stop()
                    stopped.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
        stopped.wait()
        sources.forEach { $0.cancel() }
    }
}
