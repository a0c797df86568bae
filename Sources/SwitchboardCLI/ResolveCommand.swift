import ArgumentParser
import Switchboard

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve URLs offline; print one result JSON per line.",
        discussion: "Give '-' to read URLs from standard input, one a line (blank lines skipped)."
    )

    @OptionGroup var manifest: ManifestOptions
    @OptionGroup var context: ContextOptions

    @Flag(help: "Add how each result was reached: candidates tried and why each was refused. --explain=near also lists the routes that almost matched.")
    var explain = false

    /// `--explain=near`, spelled so by the user (see ``SwitchboardCommand/main()``).
    @Flag(name: .customLong("explain-near"), help: .hidden)
    var explainNear = false

    @Argument(help: "URLs to resolve, or '-' for standard input.")
    var urls: [String] = []

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL, or '-' to read them from standard input") }
    }

    func run() throws {
        let compiled = try manifest.load()
        let ctx = context.context
        for url in urls {
            if url == "-" {
                while let line = readLine(strippingNewline: true) {
                    let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
                    if trimmed.isEmpty { continue }
                    emit(compiled, trimmed, ctx)
                }
            } else {
                emit(compiled, url, ctx)
            }
        }
    }

    private func emit(_ compiled: CompiledManifest, _ url: String, _ ctx: ResolveContext) {
        let result = explainNear
            ? compiled.resolveExplainingNearMisses(bytes: Array(url.utf8), context: ctx)
            : compiled.resolve(url, context: ctx, explain: explain)
        print(String(decoding: compiled.resultJSON(result), as: UTF8.self))
    }
}
