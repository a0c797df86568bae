import ArgumentParser
import Foundation
import Switchboard

@main
struct SwitchboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Resolve app URLs to screens from a route manifest.",
        discussion: "Exit status: 0 success, 1 checks failed, 2 usage or unreadable input.",
        version: SwitchboardVersion.current,
        subcommands: [ServeCommand.self, CheckCommand.self, ResolveCommand.self, ValidateCommand.self, RoutesCommand.self, ExportCommand.self,
                      ImportCommand.self, DiffCommand.self, CasesCommand.self, TrafficCommand.self, VerifyDomainCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Runs the command, mapping argument errors to exit status 2 (docs/pipelines.md) instead of
    /// ArgumentParser's 64.
    static func main() {
        do {
            // `--explain=near` is the API's `explain=near`; ArgumentParser has no flag with
            // an optional value, so it is read as a flag of its own.
            let arguments = CommandLine.arguments.dropFirst().map { $0 == "--explain=near" ? "--explain-near" : $0 }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
