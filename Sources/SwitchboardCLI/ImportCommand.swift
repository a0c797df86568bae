import ArgumentParser
import Foundation
import Switchboard
import SwitchboardTooling

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make a manifest from another router's route table.",
        subcommands: [ImportEchoCommand.self]
    )
}

struct ImportEchoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Print a manifest made from an Eigen-style (Artsy Echo) routes document.",
        discussion: """
            The manifest goes to standard output; to standard error, the entries left out and \
            every URL for which Echo's first-match order and Switchboard's specificity pick \
            different routes, with what to change to keep Echo's answer. \
            Exit status: 0 imported, 2 the file cannot be read or is not an Echo document.
            """
    )

    @Argument(help: "The Echo document (JSON).")
    var file: String

    @Option(name: .customLong("host"), help: ArgumentHelp("A web host whose URLs belong to the app (repeatable).", valueName: "host"))
    var hosts: [String] = []

    @Option(name: .customLong("scheme"), help: ArgumentHelp("An app URL scheme (repeatable).", valueName: "scheme"))
    var schemes: [String] = []

    @Option(help: ArgumentHelp("The manifest version (default: the document's id, else 1).", valueName: "n"))
    var version: Int64?

    func validate() throws {
        if let version, version < 1 { throw ValidationError("--version must be 1 or more") }
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            printError("switchboard: cannot read \(file)")
            throw ExitCode(2)
        }
        do {
            let imported = try EchoImport(json: [UInt8](data), options: .init(hosts: hosts, schemes: schemes, version: version))
            print(imported.manifestText, terminator: "")
            for note in imported.notes { printError("note: \(note)") }
        } catch {
            printError("switchboard: \(file)\(error)")
            throw ExitCode(2)
        }
    }
}
