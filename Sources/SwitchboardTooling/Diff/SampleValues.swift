import Switchboard
import RouteMatching

/// Values of a param's type for generated URLs: ones the type accepts and one it
/// refuses (none for `string`, which refuses nothing).
///
/// ```swift
/// SampleValues(.int)   // fits ["42"], fails "4x2"
/// SampleValues(.enumeration(["a", "b"]))   // fits ["a", "b"], fails "zz-none"
/// ```
struct SampleValues: Sendable, Equatable {
    /// Accepted values, the first one the value used when only one is wanted.
    let fits: [String]
    /// A refused value, when the type refuses any.
    let fails: String?

    init(_ type: ParamType) {
        switch type {
        case .string: (fits, fails) = (["sample"], nil)
        case .int: (fits, fails) = (["42"], "4x2")
        case .uuid: (fits, fails) = (["123e4567-e89b-12d3-a456-426614174000"], "not-a-uuid")
        case .slug: (fits, fails) = (["a-slug_1"], "not.a.slug")
        case .enumeration(let values):
            var outside = "zz-none"
            while values.contains(outside) { outside += "-x" }
            (fits, fails) = (values, outside)
        case .regex(let regex):
            (fits, fails) = (regex.example.map { [$0] } ?? [], regex.counterexample)
        }
    }
}
