import ArgumentParser
import Foundation
import Switchboard

struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "Print the route table in the order precedence tries it.",
        discussion: "One line per pattern expansion: host-restricted routes first, then literal before typed before string before wildcard."
    )

    @OptionGroup var manifest: ManifestOptions

    func run() throws {
        let compiled = try manifest.load()
        var rows: [[String]] = [["#", "HOST", "PATH", "ROUTE", "DESTINATION", "PRESENTATION", "NOTES"]]
        for (i, entry) in compiled.table.enumerated() {
            let route = entry.route
            rows.append([String(i + 1), entry.host ?? "*", entry.path, route.name, route.destination ?? "-",
                         route.redirect == nil ? route.presentation.style.rawValue : "-", entry.notes.joined(separator: "; ")])
        }
        let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let line = row.enumerated().map { column, cell in
                column == 6 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            print(line.trimmingTrailingSpaces)
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

}
