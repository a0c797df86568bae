import ArgumentParser

@main
struct SwitchboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Resolve app URLs to screens from a route manifest.",
        subcommands: [CheckCommand.self, ResolveCommand.self]
    )
}
