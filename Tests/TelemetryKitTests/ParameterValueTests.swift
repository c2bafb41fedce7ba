import Foundation
import TelemetryKit
import Testing

/// What each built-in parameter type becomes in the payload.
struct ParameterValueTests {
    @Test func everyIntegerTypeIsANumberWithinInt64sRange() {
        #expect(Int8.min.payloadValue == .int(-128))
        #expect(Int16(-300).payloadValue == .int(-300))
        #expect(Int32.max.payloadValue == .int(2_147_483_647))
        #expect(Int64.min.payloadValue == .int(Int64.min))
        #expect(Int(42).payloadValue == .int(42))
        #expect(UInt8.max.payloadValue == .int(255))
        #expect(UInt16.max.payloadValue == .int(65_535))
        #expect(UInt32.max.payloadValue == .int(4_294_967_295))
        #expect(UInt(7).payloadValue == .int(7))
        #expect(UInt64(Int64.max).payloadValue == .int(Int64.max))
    }

    /// A `UInt64` above `Int64.max` has no exact number on the wire: its digits are sent, not
    /// a truncated or wrapped value.
    @Test func anUnsignedValueAboveInt64sRangeIsItsDecimalString() {
        #expect(UInt64.max.payloadValue == .string("18446744073709551615"))
        #expect((UInt64(Int64.max) + 1).payloadValue == .string("9223372036854775808"))
    }

    @Test func otherBuiltInTypes() throws {
        #expect("pro".payloadValue == .string("pro"))
        #expect("a-pro-plan".dropFirst(2).prefix(3).payloadValue == .string("pro"))
        #expect(true.payloadValue == .bool(true))
        #expect(Float(1.5).payloadValue == .double(1.5))
        #expect(2.25.payloadValue == .double(2.25))
        let id = try #require(UUID(uuidString: "6B1E0A44-5C8D-4E0B-9C1A-3D2F7E8A9B03"))
        #expect(id.payloadValue == .string("6B1E0A44-5C8D-4E0B-9C1A-3D2F7E8A9B03"))
        #expect(Date(timeIntervalSince1970: 1_718_460_000.25).payloadValue == .string("2024-06-15T14:00:00.250Z"))
    }
}
