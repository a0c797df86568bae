import ArgumentParser
import Switchboard
import SwitchboardTooling

struct CasesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cases",
        abstract: "Write a cases file that pins today's behaviour, for `validate` and review.",
        discussion: """
            One line per pattern expansion, with sample values of each param's type and the destination it opens \
            (URL -> Destination), then a line with a context for each context in which it resolves otherwise \
            (URL [appVersion=7.1.999] -> fallback). Manifest order: keep the file in the repository and review its diff.
            """
    )

    @OptionGroup var manifest: ManifestOptions

    func run() throws {
        let compiled = try manifest.load()
        for line in CaseSnapshot.lines(for: compiled, source: manifest.config) { print(line) }
    }
}
