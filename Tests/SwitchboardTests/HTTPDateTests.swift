import Testing
@testable import Switchboard

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

/// The header readings the server and the client share (``LivePolling``).
struct LivePollingHeaderTests {
    @Test func retryAfterReadsSecondsAndDates() {
        let now: Int64 = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(LivePolling.retryAfter("120", now: now) == 120)
        #expect(LivePolling.retryAfter(" 2 ", now: now) == 2)
        #expect(LivePolling.retryAfter("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == 60)
        #expect(LivePolling.retryAfter("Sun, 06 Nov 1994 08:40:00 GMT", now: now) == 0)
        #expect(LivePolling.retryAfter("99999999", now: now) == 86_400)
        for unreadable in [nil, "", "-1", "soon", "1.5"] { #expect(LivePolling.retryAfter(unreadable, now: now) == nil) }
    }

    @Test func headerParametersAreReadOneWay() {
        #expect(HeaderParameters.first("max-age", in: "public, max-age=60") == .some("60"))
        #expect(HeaderParameters.first("max-age", in: "public, MAX-AGE=\"5\"") == .some("5"))
        #expect(HeaderParameters.first("wait", in: "respond-async, wait=10; x=y") == .some("10"))
        #expect(HeaderParameters.first("public", in: "public, max-age=60") == .some(nil))
        #expect(HeaderParameters.first("wait", in: "waiting=1") == nil)
        #expect(LivePolling.appliedWait("wait=50") && LivePolling.appliedWait("respond-async, Wait=5"))
        #expect(!LivePolling.appliedWait(nil) && !LivePolling.appliedWait("respond-async"))
    }
}
