import Foundation

/// Writes a line to standard error.
func printError(_ line: String) {
    JSONLogHandler.writeLine(Array((line + "\n").utf8))
}
