import Switchboard
/// What fails a `switchboard diff` run (`--fail-on`): a change at or above a severity,
/// any change at all (declarations included), or nothing.
package enum FailureThreshold: String, Sendable, CaseIterable {
    case breaking, changed, any, none

    /// Whether an outcome change of `severity` fails the run.
    package func fails(_ severity: ChangeSeverity) -> Bool {
        switch self {
        case .breaking: return severity >= .breaking
        case .changed: return severity >= .changed
        case .any: return true
        case .none: return false
        }
    }
}
