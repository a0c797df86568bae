import ArgumentParser
import Foundation
import Switchboard
import SwitchboardTooling

/// `--config`, shared by the commands that read a manifest.
struct ManifestOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("The route manifest [env: SWITCHBOARD_CONFIG; default: Config/routes.json].", valueName: "manifest"))
    var configFlag: String?

    /// The manifest path: the flag, else SWITCHBOARD_CONFIG, else Config/routes.json.
    var config: String { configFlag ?? ProcessInfo.processInfo.environment["SWITCHBOARD_CONFIG"] ?? "Config/routes.json" }

    /// Loads the manifest, printing problems; exits 2 when unreadable, 1 when invalid.
    func load() throws -> CompiledManifest {
        try Diagnostics.loadOrExit(config)
    }
}

/// Request context flags shared by `resolve` (and `validate`).
struct ContextOptions: ParsableArguments {
    @Option(help: "The client's platform: ios, android or web.")
    var platform: String?

    @Option(help: "The client's idiom: phone or tablet.")
    var idiom: String?

    @Option(name: .customLong("app-version"), help: "The client's app version (semver, e.g. 7.2.0).")
    var appVersion: String?

    func validate() throws {
        _ = try parsed()
    }

    var context: ResolveContext { (try? parsed()) ?? ResolveContext() }

    /// The flags read as every other input reads a context.
    private func parsed() throws -> ResolveContext {
        var context = ResolveContext()
        for (field, value) in [(ResolveContext.Field.platform, platform), (.idiom, idiom), (.appVersion, appVersion)] {
            guard let value else { continue }
            do {
                try context.set(field, value)
            } catch {
                throw ValidationError("--\(field == .appVersion ? "app-version" : field.rawValue): \(error)")
            }
        }
        return context
    }
}

enum Diagnostics {
    /// Loads the manifest or exits: 2 when it cannot be read, `invalidStatus` (1; 2 for
    /// `diff`, whose inputs must both be manifests) when it is invalid, after printing
    /// every problem (to standard output for `check`, whose output they are).
    /// `report`: prints an invalid manifest's problems (by default as text, to standard
    /// error or, with `problemsToStandardOutput`, standard output).
    static func loadOrExit(_ path: String, problemsToStandardOutput: Bool = false, invalidStatus: Int32 = 1, serving: Bool = false,
                           report: ((String, [ManifestDiagnostic]) -> Void)? = nil) throws -> CompiledManifest {
        do {
            return serving ? try loadForServing(path) : try ManifestFile.load(path)
        } catch {
            switch error {
            case .unreadable:
                printError("switchboard: \(error)")
                throw ExitCode(2)
            case .invalid(let path, let manifestError):
                if let report {
                    report(path, manifestError.diagnostics)
                } else {
                    Self.report(path, manifestError.diagnostics, problemsToStandardOutput ? { print($0) } : printError)
                }
                throw ExitCode(invalidStatus)
            }
        }
    }

    /// The manifest at `path` as `serve` takes it: also refused when the association files
    /// it makes could not be served whole (`aasa-too-large`).
    static func loadForServing(_ path: String) throws(ManifestFile.LoadError) -> CompiledManifest {
        let compiled = try ManifestFile.load(path)
        if case .failure(let error) = AssociationFiles.make(compiled) {
            throw .invalid(path: path, ManifestError(diagnostics: error.diagnostics + compiled.warnings))
        }
        return compiled
    }

    static func report(_ path: String, _ diagnostics: [ManifestDiagnostic], _ printLine: (String) -> Void) {
        let (errors, warnings) = ManifestDiagnostic.counts(diagnostics)
        printLine("\(path): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        for d in diagnostics { printLine("  \(d)") }
    }
}
