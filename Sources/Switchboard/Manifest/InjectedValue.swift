/// A value added to every result of a route (`inject`).
package enum InjectedValue: Sendable, Equatable {
    case constant(JSONValue)
    /// Copies another param's converted value; left out when that param is absent.
    case param(String)
}
