import Foundation
import Gzip
import Testing
import TestSupport

/// gzip against the system's `gzip`, so neither direction trusts our own zlib calls alone.
struct GzipTests {
    static let text = Array(String(repeating: "{\"route\":\"artwork\"}\n", count: 500).utf8)

    @Test func compressedBytesAreWhatGzipReads() throws {
        let zipped = try #require(Gzip.compress(Self.text))
        #expect(zipped.count < Self.text.count / 10)
        #expect(GzipDecoder.isGzip(zipped[...]))
        #expect(try Self.system("gzip -dc", zipped) == Self.text)
    }

    @Test func theDecoderReadsConcatenatedMembersInAnyChunking() throws {
        // `cat a.gz b.gz`, as logrotate appends: both members, in order.
        let first = try Self.system("gzip -c", Array("first line\n".utf8))
        let second = try Self.system("gzip -c", Self.text)
        let file = first + second
        for chunk in [1, 7, 4096, file.count] {
            let decoder = try GzipDecoder()
            var out: [UInt8] = []
            var start = 0
            while start < file.count {
                let end = min(file.count, start + chunk)
                try decoder.decode(Array(file[start..<end])) { out += $0 }
                start = end
            }
            #expect(out == Array("first line\n".utf8) + Self.text, "chunks of \(chunk)")
            #expect(!decoder.midMember)
        }
    }

    @Test func aCutOrDamagedStreamIsTold() throws {
        let zipped = try Self.system("gzip -c", Self.text)
        let cut = try GzipDecoder()
        var out: [UInt8] = []
        try cut.decode(Array(zipped.prefix(zipped.count / 2))) { out += $0 }
        #expect(cut.midMember)
        #expect(out.count < Self.text.count)

        var damaged = zipped
        damaged[3] = 0xFF  // reserved header flags: zlib refuses the member
        let decoder = try GzipDecoder()
        #expect(throws: GzipDecoder.Failure.self) { try decoder.decode(damaged) { _ in } }
        #expect(!GzipDecoder.isGzip(Array("plain".utf8)[...]))
    }

    static func system(_ command: String, _ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readAll()
        process.waitUntilExit()
        return [UInt8](data)
    }
}
