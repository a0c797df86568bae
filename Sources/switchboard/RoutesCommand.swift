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
            var notes: [String] = []
            if let redirect = route.redirect { notes.append("redirect \(redirect.text)") }
            if entry.pattern != entry.path && route.patterns.count == 1 { notes.append("from \(entry.pattern)") }
            if route.patterns.count > 1 { notes.append("alias \(entry.pattern)") }
            if route.priority != 0 { notes.append("priority \(route.priority)") }
            if let since = route.since { notes.append("since \(since)") }
            if let until = route.until { notes.append("until \(until)") }
            for variant in route.variants { notes.append("variant " + Self.describe(variant)) }
            if !route.universalLink { notes.append("no universal link") }
            for param in route.params where param.type != .string { notes.append(":\(param.name) \(param.type)") }
            rows.append([String(i + 1), entry.host ?? "*", entry.path, route.name, route.destination ?? "-",
                         route.redirect == nil ? route.presentation.style.rawValue : "-", notes.joined(separator: "; ")])
        }
        let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let line = row.enumerated().map { column, cell in
                column == 6 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            print(line.trimmingTrailingSpaces)
        }
    }

    static func describe(_ v: Variant) -> String {
        var when: [String] = []
        if let p = v.platforms { when.append("platform=\(p.joined(separator: "|"))") }
        if let i = v.idioms { when.append("idiom=\(i.joined(separator: "|"))") }
        if let a = v.appVersion { when.append("appVersion \(a)") }
        var then: [String] = []
        if let d = v.destination { then.append(d) }
        if let p = v.presentation { then.append(p.style.rawValue) }
        return "[\(when.joined(separator: ", ")) -> \(then.joined(separator: " "))]"
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

}
