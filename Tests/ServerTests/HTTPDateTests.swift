import Testing
@testable import SwitchboardServer

/// HTTP-date per RFC 9110 5.6.7: all three formats read, anything else refused.
@Suite struct HTTPDateTests {
    static let nov6 = Int64(784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func readsTheThreeFormats(_ text: String) {
        #expect(HTTPDate.parse(text) == Self.nov6)
    }

    @Test func formatsWhatItReads() {
        #expect(HTTPDate.format(Self.nov6) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for epoch: Int64 in [0, 951_782_400, 1_795_687_200, 4_102_444_799] {
            #expect(HTTPDate.parse(HTTPDate.format(epoch)) == epoch)
        }
        #expect(HTTPDate.parse("Wednesday, 20-Nov-26 10:00:00 GMT") == 1_795_168_800)
    }

    @Test(arguments: [
        "", "garbage", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 06 Nov 1994 08-49-37 GMT",
        "Sun, +6 Nov 1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun Nov  6 08:49:37 19x4",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
}
