/// A line and column (1-based, columns in characters) in a manifest or cases file: where
/// a diagnostic, a route or a case is.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
