import Foundation

/// The manifest an app ships for a first start with no cache and no network
/// (``SwitchboardClient/Configuration/bundled``): its bytes, or a file to read them from,
/// such as a resource of the app's bundle. A file is read off the caller's thread, with the
/// compile.
///
/// ```swift
/// let bundled = BundledManifest.file(Bundle.main.url(forResource: "routes", withExtension: "json")!)
/// ```
public enum BundledManifest: Sendable, Equatable {
    case data(Data)
    case file(URL)

    /// Why a bundled file could not be read.
    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    func bytes() throws -> [UInt8] {
        switch self {
        case .data(let data):
            return Array(data)
        case .file(let url):
            do {
                return Array(try Data(contentsOf: url))
            } catch {
                throw ReadError(description: "the bundled manifest \(url.path) cannot be read: \(error.localizedDescription)")
            }
        }
    }
}
