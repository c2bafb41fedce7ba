import TelemetryKit
import TelemetryKitHTTP
import Testing

struct GzipTests {
    @Test func producesAGzipMemberMuchSmallerThanTheJSON() throws {
        let events = (0..<100).map { Fixtures.event(number: $0, payload: Fixtures.defaultProcessorsPayload) }
        let json = EventWireEncoder.encode(events)
        let compressed = try Gzip.compress(json)
        // RFC 1952: magic 1f 8b, method 8 (deflate).
        #expect(Array(compressed.prefix(3)) == [0x1f, 0x8b, 0x08])
        // The trailer holds the input size modulo 2^32, little-endian.
        let size = compressed.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(size == json.count)
        #expect(compressed.count * 5 < json.count)
    }

    @Test func compressesAnEmptyInput() throws {
        let compressed = try Gzip.compress([])
        #expect(Array(compressed.prefix(2)) == [0x1f, 0x8b])
        #expect(compressed.count == 20)
    }
}
