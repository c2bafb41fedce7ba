import Foundation
import TelemetryKit
import TelemetryKitSupport
import Testing

struct EventInputCodableTests {
    @Test func roundTripKeepsTypesAndTimestamp() throws {
        let input = EventInput(
            "Checkout.completed",
            parameters: ["total": 3.0, "items": 3, "coupon": "3", "gift": false],
            floatValue: 19.99,
            customUserID: "user-1",
            timestamp: Date(timeIntervalSince1970: 1_704_067_200.123),
            skipsReservedPrefixValidation: true
        )
        let data = try JSONEncoder().encode(input)
        let decoded = try JSONDecoder().decode(EventInput.self, from: data)
        #expect(decoded == input)
        #expect(decoded.parameters.values["total"] == .double(3.0))
        #expect(decoded.parameters.values["items"] == .int(3))
        #expect(decoded.parameters.values["coupon"] == .string("3"))
        #expect(decoded.timestamp.timeIntervalSince1970 == 1_704_067_200.123)
    }

    @Test func minimalInputDecodesWithDefaults() throws {
        let json = Data(#"{"name":"x","timestamp":1704067200}"#.utf8)
        let decoded = try JSONDecoder().decode(EventInput.self, from: json)
        #expect(decoded.name == "x")
        #expect(decoded.parameters.isEmpty)
        #expect(decoded.floatValue == nil)
        #expect(decoded.skipsReservedPrefixValidation == false)
        #expect(decoded.timestamp == Date(timeIntervalSince1970: 1_704_067_200))
    }

    @Test func untypedParameterValueIsAnError() {
        let json = Data(#"{"name":"x","timestamp":1,"parameters":{"k":{"z":1}}}"#.utf8)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EventInput.self, from: json)
        }
    }
}
