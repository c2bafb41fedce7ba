import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// Payload changes made after finalization: a value set goes to the event's own layer, above
/// the shared one, and removing a shared key merges the layers. Every check compares with a
/// plain dictionary given the same changes.
struct EventPayloadEditTests {
    /// The metadata and event of the two-layer tests, with one more own entry.
    static let metadata = EventPayloadLayerTests.metadata
    static let own: [String: PayloadValue] = ["screen": "home", "count": 3, "coupon": "SPRING24"]

    static func layered() -> Event {
        EventPayloadLayerTests.layered(own: own)
    }

    /// Every way of reading the payload agrees with `expected`.
    static func expectPayload(_ event: Event, _ expected: [String: PayloadValue], _ step: String) {
        #expect(event.payload == expected, "\(step)")
        #expect(event.payloadCount == expected.count, "\(step)")
        var visited: [String: PayloadValue] = [:]
        var visits = 0
        event.forEachPayloadEntry { key, value in
            visited[key] = value
            visits += 1
        }
        #expect(visited == expected, "\(step)")
        #expect(visits == expected.count, "\(step): a key was visited twice")
        for key in Set(expected.keys).union(["TelemetryDeck.Device.platform", "screen", "count", "never-set"]) {
            #expect(event.payloadValue(forKey: key) == expected[key], "\(step): \(key)")
        }
    }

    @Test func editsOverBothLayersReadAsTheMergedDictionary() {
        var event = Self.layered()
        var expected = Self.metadata.merging(Self.own) { $1 }
        let changes: [(String, PayloadValue?)] = [
            ("screen", "checkout"),  // own key that shadows metadata
            ("TelemetryDeck.AppInfo.version", "3.0"),  // metadata key
            ("applied_0", 0),  // new key
            ("count", nil),  // own key removed
            ("TelemetryDeck.Device.platform", nil),  // metadata key removed
            ("applied_0", 1),  // a key set again
            ("screen", nil),  // removed from both layers at once
            ("absent", nil),  // removing a key nobody has changes nothing
            ("screen", "settings"),  // a removed key set again
        ]
        for (key, value) in changes {
            event.setPayloadValue(value, forKey: key)
            expected[key] = value
            Self.expectPayload(event, expected, "after \(key) = \(String(describing: value))")
        }
        #expect(
            expected == [
                "TelemetryDeck.AppInfo.version": "3.0", "applied_0": 1, "coupon": "SPRING24", "screen": "settings",
            ]
        )
    }

    @Test func removingAKeyOnlyAnEditSetLeavesNoTrace() {
        var event = Self.layered()
        event.setPayloadValue("x", forKey: "temporary")
        event.setPayloadValue(nil, forKey: "temporary")
        Self.expectPayload(event, Self.metadata.merging(Self.own) { $1 }, "set then removed")
        #expect(event == Self.layered())
    }

    /// Random changes (fixed seed) on few keys, so keys are set, removed and set again, in
    /// both layers.
    @Test(arguments: [1, 7, 42])
    func randomChangesMatchAPlainDictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let keys = Array(Self.metadata.keys) + Array(Self.own.keys) + (0..<30).map { "k\($0)" }
        var event = Self.layered()
        var expected = Self.metadata.merging(Self.own) { $1 }
        for step in 0..<400 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let value: PayloadValue? = random.next() % 4 == 0 ? nil : .int(Int64(step))
            event.setPayloadValue(value, forKey: key)
            expected[key] = value
            if event.payload != expected {
                Issue.record("seed \(seed), step \(step): \(key) = \(String(describing: value)) diverged")
                return
            }
        }
        Self.expectPayload(event, expected, "seed \(seed) end")
    }

    /// Many writes and removals, on a flat and on a layered event, with nothing lost.
    @Test(arguments: [false, true])
    func manyWritesKeepEveryValue(layered: Bool) {
        var event = layered ? Self.layered() : Event(appID: "APP", type: "Bulk", clientUser: "u", receivedAt: .now)
        var expected = event.payload
        for index in 0..<1_000 {
            event.setPayloadValue(.int(Int64(index)), forKey: "key\(index)")
            expected["key\(index)"] = .int(Int64(index))
        }
        for index in stride(from: 0, to: 1_000, by: 3) {
            event.setPayloadValue(nil, forKey: "key\(index)")
            expected["key\(index)"] = nil
        }
        Self.expectPayload(event, expected, "1,000 writes, layered: \(layered)")
        #expect(event.payloadCount == (layered ? 5 : 0) + 666)
    }

    @Test func anEditedEventEqualsAndHashesLikeItsFlatCopy() {
        var edited = Self.layered()
        edited.setPayloadValue("checkout", forKey: "screen")
        edited.setPayloadValue(nil, forKey: "TelemetryDeck.Device.platform")
        edited.setPayloadValue(true, forKey: "added")
        var flat = edited
        flat.payload = edited.payload
        #expect(edited == flat)
        #expect(edited.hashValue == flat.hashValue)
        #expect(edited.estimatedEncodedSize == flat.estimatedEncodedSize)
        #expect(edited != Self.layered())
    }

    @Test func editingACopyLeavesTheOriginalAlone() {
        let original = Self.layered()
        var copy = original
        copy.setPayloadValue("settings", forKey: "screen")
        copy.setPayloadValue(nil, forKey: "count")
        #expect(original.payloadValue(forKey: "screen") == "home")
        #expect(original.payloadValue(forKey: "count") == .int(3))
        #expect(copy.payloadValue(forKey: "screen") == "settings")
    }

    @Test func writingThroughPayloadKeepsTheEdits() {
        var event = Self.layered()
        event.setPayloadValue("checkout", forKey: "screen")
        event.payload["count"] = 4
        #expect(
            event.payload == Self.metadata.merging(["screen": "checkout", "count": 4, "coupon": "SPRING24"]) { $1 }
        )
    }

    @Test func theJSONCodecWritesTheEditedPayload() throws {
        var plain = Self.layered()  // shares its metadata layer with `edited`
        plain.id = UUID(uuidString: "6B1E0A44-5C8D-4E0B-9C1A-3D2F7E8A9B03") ?? UUID()
        var edited = Self.layered()
        edited.setPayloadValue("3.0", forKey: "TelemetryDeck.AppInfo.version")
        edited.setPayloadValue(nil, forKey: "coupon")
        edited.setPayloadValue(1, forKey: "applied_0")
        var addedOnly = Self.layered()
        addedOnly.id = UUID(uuidString: "6B1E0A44-5C8D-4E0B-9C1A-3D2F7E8A9B04") ?? UUID()
        addedOnly.setPayloadValue(2, forKey: "applied_1")
        for event in [plain, edited, addedOnly, plain] {
            let bytes = EventJSONCodec.encode(event)
            let decoded = try bytes.withUnsafeBytes { try EventJSONCodec.decode($0) }
            #expect(decoded == event)
            #expect(decoded.payload == event.payload)
        }
        let decodedEdited = try EventJSONCodec.encode(edited).withUnsafeBytes { try EventJSONCodec.decode($0) }
        #expect(decodedEdited.payload["TelemetryDeck.AppInfo.version"] == "3.0")
        #expect(decodedEdited.payload["coupon"] == nil)
        #expect(decodedEdited.payloadCount == 5)
    }
}
