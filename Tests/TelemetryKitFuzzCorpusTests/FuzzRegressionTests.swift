import Foundation
import TelemetryKit
import TelemetryKitSupport
import Testing

/// What the fuzz targets found, each as a test with the exact expected result. The inputs are
/// also in Fuzz/Corpus/<reader>/regression-*, which the corpus tests replay.
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

    /// FuzzIngestRequest (150 s): `receivedAt` may also be seconds since 1970, and any number
    /// was taken. 300000000000002.25 s is in year 9,508,389; written back it became the epoch.
    @Test func aNumericTimestampOutsideTheFourDigitYearsIsRefused() throws {
        func line(_ receivedAt: String) -> [UInt8] {
            Array(
                (#"{"id":"0A1B2C3D-0000-4000-8000-000000000001","appID":"A","type":"T","clientUser":"c","#
                    + #""receivedAt":\#(receivedAt)}"#).utf8
            )
        }
        let error = #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(line("300000000000002.25")) }
        #expect(error?.description.contains("receivedAt 300000000000002.25 is outside the years 0000 to 9999") == true)
        #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(line("-1e308")) }
        #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(line("253402300800")) }

        let last = try EventJSONCodec.decode(line("253402300799.999"))
        #expect(ISO8601.string(from: last.receivedAt) == "9999-12-31T23:59:59.999Z")
        let ordinary = try EventJSONCodec.decode(line("1718460000.5"))
        #expect(ISO8601.string(from: ordinary.receivedAt) == "2024-06-15T14:00:00.500Z")
    }
}
