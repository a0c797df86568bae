import ArgumentParser
import Foundation
import RouteMatching
import Switchboard
import SwitchboardTooling

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Generate universal-link and app-link files, or conformance vectors for clients, from the manifest.",
        subcommands: [AASACommand.self, AppLinksCommand.self, ConformanceCommand.self]
    )
}

struct AASACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Print an apple-app-site-association document, or check one with --check.",
        discussion: "Exit status with --check: 0 the file agrees with the manifest, 1 it does not, 2 it cannot be read."
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(name: .customLong("app-id"), help: ArgumentHelp("The app: TEAMID.BUNDLEID (default: the manifest's apps.apple.appIDs).", valueName: "id"))
    var appID: String?

    @Option(help: ArgumentHelp("The host the file is served on (default: the manifest's first host).", valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp("Compare this existing AASA file with the manifest instead.", valueName: "file"))
    var check: String?

    func validate() throws {
        if let appID, !appID.contains(".") { throw ValidationError("--app-id '\(appID)' should look like TEAMID.BUNDLEID") }
    }

    func run() throws {
        let compiled = try manifest.load()
        guard let listed = host ?? compiled.manifest.hosts.first else {
            printError("switchboard: the manifest lists no hosts: there are no universal links to export")
            throw ExitCode(2)
        }
        guard case .success(let key) = HostName.key(listed: listed), compiled.scope.hosts.contains(key) else {
            printError("switchboard: \(listed) is not one of the manifest's hosts")
            throw ExitCode(2)
        }
        if let check {
            let document: JSONValue
            do {
                document = try JSONParser.parse(try ManifestFile.read(check))
            } catch {
                printError("switchboard: \(check): \(error)")
                throw ExitCode(2)
            }
            guard let rules = AppSiteAssociation.rules(document) else {
                printError("switchboard: \(check): no applinks.details")
                throw ExitCode(2)
            }
            let problems = AppSiteAssociation.check(rules, compiled, host: key)
            problems.forEach { print($0) }
            print(problems.isEmpty ? "\(check) agrees with \(manifest.config) for \(listed)" : "\(problems.count) problems")
            if !problems.isEmpty { throw ExitCode(1) }
            return
        }
        // The app IDs given, else the manifest's: what the server serves for the host.
        guard let ids = appID.map({ [$0] }) ?? compiled.manifest.apps?.appleAppIDs, !ids.isEmpty else {
            printError("switchboard: give --app-id TEAMID.BUNDLEID, or list the app under apps.apple.appIDs in the manifest (or --check FILE)")
            throw ExitCode(2)
        }
        let components = AppSiteAssociation.components(compiled, host: key)
        let document = AppSiteAssociation.document(appIDs: ids, components: components)
        print(String(decoding: document.serialized(), as: UTF8.self))
    }
}

struct AppLinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-links",
        abstract: "Print Android intent filters (scheme, host, pathPattern) for the manifest's routes."
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(help: ArgumentHelp("The Android application id (default: the first of the manifest's apps.android).", valueName: "name"))
    var package: String?

    @Option(help: ArgumentHelp("Also write assetlinks.json, the statements of the manifest's apps.android, to this file.",
                               valueName: "file"))
    var assetlinks: String?

    func run() throws {
        let compiled = try manifest.load()
        guard let package = package ?? compiled.manifest.apps?.android.first?.package else {
            printError("switchboard: give --package, or list the app under apps.android in the manifest")
            throw ExitCode(2)
        }
        if let assetlinks {
            guard let statements = AssociationFiles.assetLinks(compiled.manifest.apps) else {
                printError("switchboard: the manifest lists no apps.android: there is no assetlinks.json to write")
                throw ExitCode(2)
            }
            do {
                try Data(statements).write(to: URL(fileURLWithPath: assetlinks), options: .atomic)
            } catch {
                printError("switchboard: cannot write \(assetlinks): \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        print(AndroidAppLinks.xml(compiled, package: package, source: manifest.config), terminator: "")
    }
}

struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Write conformance vectors: the manifest and every case a client that resolves offline must answer as the server does.",
        discussion: """
            One JSON document: the contract version, the manifest, and cases of {url, context, expect} with the full \
            result JSON of GET /v1/resolve (every expansion of every route with fitting and failing values, hosts, \
            schemes, the contexts that change a result, hostile URLs). docs/clients.md describes the format.
            """
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the document to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Also prove these URLs, one per line: the table's own edge cases.", valueName: "file"))
    var urls: String?

    func run() throws {
        let compiled = try manifest.load()
        var extra: [String] = []
        var generator = "switchboard export conformance --config \(manifest.config)"
        if let urls {
            guard let data = FileManager.default.contents(atPath: urls) else {
                printError("switchboard: \(urls): cannot be read")
                throw ExitCode(2)
            }
            extra = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            generator += " --urls \(urls)"
        }
        let document = ConformanceVectors.document(for: compiled, urls: extra, generator: generator)
        guard let output else {
            FileHandle.standardOutput.write(Data(document))
            return
        }
        do {
            try Data(document).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            printError("switchboard: cannot write \(output): \(error.localizedDescription)")
            throw ExitCode(2)
        }
    }
}
