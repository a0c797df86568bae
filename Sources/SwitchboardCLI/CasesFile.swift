import ArgumentParser
import Switchboard
import SwitchboardTooling

/// Reading a cases file (`validate`, `diff --cases`), '-' for standard input.
enum CasesFile {
    /// The cases, or exit 2 with the line that cannot be read.
    static func read(_ path: String) throws -> [ValidationCase] {
        let text: String
        if path == "-" {
            var lines: [String] = []
            while let line = readLine(strippingNewline: true) { lines.append(line) }
            text = lines.joined(separator: "\n")
        } else {
            do {
                text = String(decoding: try ManifestFile.read(path), as: UTF8.self)
            } catch {
                printError("switchboard: \(error)")
                throw ExitCode(2)
            }
        }
        do {
            return try ValidationCase.parse(text)
        } catch {
            printError("switchboard: \(path): \(error)")
            throw ExitCode(2)
        }
    }
}
