import Foundation
import Gzip

/// Reads the traffic files of `traffic` and `diff --traffic` in chunks, gzip or not (told
/// by its first bytes), `-` standard input, into a ``TrafficReader``. A file that cannot be
/// opened or read, or whose gzip stream is damaged or cut short, ends the reading
/// (``Unreadable``, naming the file: the command exits 2).
package enum TrafficFiles {
    static let chunkSize = 1 << 20

    /// A traffic file that cannot be opened or read.
    package struct Unreadable: Error, CustomStringConvertible {
        package let description: String
    }

    /// `progress` is told of the reader after each chunk (a progress line's figures). Past
    /// `deadline` the reading stops after the chunk in hand (a MiB read, or what one
    /// decodes to): false when it stopped before the end of the files.
    @discardableResult
    package static func read(_ paths: [String], into reader: inout TrafficReader, progress: ((TrafficReader) -> Void)? = nil,
                             deadline: ContinuousClock.Instant? = nil, _ body: (TrafficRecord) -> Void) throws(Unreadable) -> Bool {
        let clock = ContinuousClock()
        for path in paths {
            let handle: FileHandle
            if path == "-" {
                handle = .standardInput
            } else if let opened = FileHandle(forReadingAtPath: path) {
                handle = opened
            } else {
                throw Unreadable(description: "\(path): cannot be read")
            }
            defer { if path != "-" { try? handle.close() } }
            reader.begin(file: path == "-" ? "(standard input)" : path)
            var decoder: GzipDecoder?
            var first = true
            while true {
                if let deadline, clock.now >= deadline {
                    reader.finish(body)
                    return false
                }
                let data: Data
                do {
                    data = try handle.read(upToCount: chunkSize) ?? Data()
                } catch {
                    throw Unreadable(description: "\(path): \(error.localizedDescription)")
                }
                if data.isEmpty { break }
                let chunk = [UInt8](data)
                if first {
                    first = false
                    if GzipDecoder.isGzip(chunk[...]) { decoder = try? GzipDecoder() }
                }
                defer { progress?(reader) }
                guard let gzip = decoder else {
                    reader.feed(chunk[...], body)
                    continue
                }
                do {
                    // A MiB of gzip may decode to a GiB: the clock is read between its pieces.
                    var late = false
                    try gzip.decode(chunk) { piece in
                        if late { return }
                        reader.feed(piece, body)
                        if let deadline, clock.now >= deadline { late = true }
                    }
                    if late {
                        reader.finish(body)
                        return false
                    }
                } catch {
                    throw Unreadable(description: "\(path): the gzip stream is damaged (\(error)) at line \(reader.lines + 1)")
                }
            }
            // A log cut short (a copy interrupted, a rotation mid-write) is not the traffic
            // it claims to be: the run ends rather than judge by part of it.
            if let decoder, decoder.midMember { throw Unreadable(description: "\(path): the gzip stream is cut short after \(reader.lines) lines") }
            reader.finish(body)
        }
        return true
    }
}
