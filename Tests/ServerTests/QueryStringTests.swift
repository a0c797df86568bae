import Dispatch
import Synchronization
import Testing
@testable import SwitchboardServer

@Suite struct QueryStringTests {
    static func items(_ query: String) throws -> [String] {
        let parsed = try QueryString(Array(query.utf8)[...])
        return parsed.items.map {
            String(decoding: $0.key, as: UTF8.self) + "=" + String(decoding: $0.rawValue, as: UTF8.self)
        }
    }

    @Test(arguments: [
        ("", []),
        ("url=/a", ["url=/a"]),
        ("a=1&&b=2&", ["a=1", "b=2"]),
        ("flag&x=", ["flag=", "x="]),
        ("a=b=c", ["a=b=c"]),
        ("=v&k=1", ["k=1"]),
        ("my+key=a+b&%75rl=%2F", ["my key=a+b", "url=%2F"]),
        ("k%3D=v", ["k==v"]),
        ("url=%252F%41", ["url=%252F%41"]),
    ] as [(String, [String])])
    func splitsItemsAndDecodesKeysOnly(_ query: String, _ expected: [String]) throws {
        #expect(try Self.items(query) == expected)
    }

    @Test(arguments: ["%", "a=%4", "a=%4g", "%zz=1", "a=1&b=%", "a=1%&b=2", "x=%%41"])
    func refusesMalformedEscapesAnywhere(_ query: String) {
        #expect(throws: QueryString.Problem.invalidPercentEncoding) { try Self.items(query) }
    }

    @Test func decodesValuesOnce() throws {
        let query = try QueryString(Array("url=https%3A%2F%2Fartsy.net%2Fa%252Fb+c".utf8)[...])
        #expect(try QueryString.decode(query.items[0].rawValue) == Array("https://artsy.net/a%2Fb c".utf8))
    }

    /// Every pair of bytes after a `%`: decoded to their value exactly when both are hex
    /// digits (either case), refused otherwise.
    @Test func decodesEveryEscapeAndRefusesEveryOtherPair() throws {
        let hex = Array("0123456789abcdef".utf8)
        func value(_ b: UInt8) -> UInt8? {
            hex.firstIndex(of: b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b).map(UInt8.init)
        }
        for high in UInt8.min...UInt8.max {
            for low in UInt8.min...UInt8.max {
                let raw: [UInt8] = [UInt8(ascii: "%"), high, low]
                if let h = value(high), let l = value(low) {
                    #expect(try QueryString.decode(raw[...]) == [h << 4 | l])
                } else {
                    #expect(throws: QueryString.Problem.invalidPercentEncoding) { try QueryString.decode(raw[...]) }
                }
            }
        }
        for cut in ["%", "%4", "a%", "a%4"] {
            #expect(throws: QueryString.Problem.invalidPercentEncoding) { try QueryString.decode(Array(cut.utf8)[...]) }
        }
    }

    @Test(arguments: [("a%00b", true), ("%2500", false), ("abc", false), ("", false), ("x+%00", true)])
    func saysWhetherTheDecodedValueHoldsNUL(_ raw: String, _ expected: Bool) throws {
        var containsNUL = !expected
        _ = try QueryString.decode(Array(raw.utf8)[...], containsNUL: &containsNUL)
        #expect(containsNUL == expected)
    }

    /// An empty value decodes without writing to anything shared. Swift 6.3's
    /// `Array.append(addingCapacity: 0, ...)` on an empty array writes the count of the
    /// runtime's one empty-array storage, which every thread reads: a data race that
    /// ThreadSanitizer (`.ci/tsan`) reports here when the decoder appends nothing.
    @Test func anEmptyValueDecodesOnEveryThreadAtOnce() throws {
        let queries = ["url=", "a=&b=", "&k=&"].map { Array($0.utf8)[...] }
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2_000 {
                for query in queries {
                    let values = try? QueryString(query).items.map { try QueryString.decode($0.rawValue) }
                    if values?.allSatisfy(\.isEmpty) != true { wrong.add(1, ordering: .relaxed) }
                }
                if (try? QueryString.decode([][...])) != [] { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
