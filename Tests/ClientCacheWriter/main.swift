// For ClientTests' kill-while-persisting test: writes the cache file given over and
// over, alternating between two manifests, until it is killed. The test kills it at
// random points and checks that the file always reads back as one of them.
import Foundation
import SwitchboardKit

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: client-cache-writer CACHE MANIFEST_A MANIFEST_B\n".utf8))
    exit(2)
}
let cache = ManifestCache(path: arguments[1])
let entries = try [arguments[2], arguments[3]].map { path in
    ManifestCache.Entry(body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), etag: "\"\(path)\"")
}
var written = 0
while true {
    try cache.write(entries[written % 2])
    written += 1
    // A line per write done, so the test can aim its kill at any point of the next one.
    FileHandle.standardOutput.write(Data("\(written)\n".utf8))
}
