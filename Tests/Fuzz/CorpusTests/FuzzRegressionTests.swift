import Foundation
import TelemetryKit
import Testing

/// What the fuzz targets found, each as a test with the exact expected result. The inputs are
/// also in Tests/Fuzz/Corpus/<reader>/regression-*, which the corpus tests replay.
struct FuzzRegressionTests {
    /// FuzzEventJSON (its first seed): `23:59:60` on 9999-12-31 is a date in year 10000. It
    /// was accepted, and the encoder wrote it as `0000-01-01T00:00:00.999Z`, so an event read
    /// from a body or a cache line came back 10,000 years earlier.
    @Test func aTimestampPastYear9999IsRefusedNotWrittenWithItsYearCut() throws {
        #expect(ISO8601.date(from: "9999-12-31T23:59:60.999Z") == nil)
        let last = try #require(ISO8601.date(from: "9999-12-31T23:59:59.999Z"))
        #expect(ISO8601.string(from: last) == "9999-12-31T23:59:59.999Z")
        let first = try #require(ISO8601.date(from: "0000-01-01T00:00:00Z"))
        #expect(ISO8601.string(from: first) == "0000-01-01T00:00:00.000Z")
        // A leap second elsewhere still rolls over into the next minute.
        let leap = try #require(ISO8601.date(from: "2024-02-29T23:59:60.500Z"))
        #expect(ISO8601.string(from: leap) == "2024-03-01T00:00:00.500Z")
        // Dates the format cannot hold are written as the epoch, as huge ones already were.
        #expect(ISO8601.string(from: last.addingTimeInterval(0.001)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: first.addingTimeInterval(-0.001)) == "1970-01-01T00:00:00.000Z")

        let line =
            #"{"id":"0A1B2C3D-0000-4000-8000-000000000004","appID":"A","type":"T","clientUser":"c","#
            + #""receivedAt":"9999-12-31T23:59:60.9999Z"}"#
        let error = #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(Array(line.utf8)) }
        #expect(error?.description.contains("receivedAt '9999-12-31T23:59:60.9999Z' is not an ISO 8601") == true)
    }
}
