import Foundation
import TelemetryKit
import TelemetryKitClient
import Testing

/// The two-layer payload: shared metadata below, the event's own entries on top.
struct EventPayloadLayerTests {
    static let metadata: [String: PayloadValue] = [
        "TelemetryDeck.Device.platform": "Linux",
        "TelemetryDeck.AppInfo.version": "2.3.1",
        "screen": "from-metadata",
    ]

    static func layered(own: [String: PayloadValue] = ["screen": "home", "count": 3]) -> Event {
        Event(
            id: UUID(uuidString: "6B1E0A44-5C8D-4E0B-9C1A-3D2F7E8A9B01") ?? UUID(),
            appID: "APP",
            type: "Screen.shown",
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000.123),
            sharedPayload: metadata,
            ownPayload: own
        )
    }

    static let merged: [String: PayloadValue] = [
        "TelemetryDeck.Device.platform": "Linux",
        "TelemetryDeck.AppInfo.version": "2.3.1",
        "screen": "home",
        "count": 3,
    ]

    @Test func ownEntriesWinAndTheMergedViewIsConsistent() {
        let event = Self.layered()
        #expect(event.payload == Self.merged)
        #expect(event.payloadCount == 4)
        #expect(event.payloadValue(forKey: "screen") == "home")
        #expect(event.payloadValue(forKey: "TelemetryDeck.Device.platform") == "Linux")
        #expect(event.payloadValue(forKey: "missing") == nil)
        var visited: [String: PayloadValue] = [:]
        var visits = 0
        event.forEachPayloadEntry { key, value in
            visited[key] = value
            visits += 1
        }
        #expect(visited == Self.merged)
        #expect(visits == 4)  // the shadowed metadata "screen" is not visited
    }

    @Test func withoutShadowedKeysEveryEntryOfBothLayersIsVisitedOnce() {
        let event = Self.layered(own: ["count": 3, "new": true])
        var visited: [String: PayloadValue] = [:]
        var visits = 0
        event.forEachPayloadEntry { key, value in
            visited[key] = value
            visits += 1
        }
        #expect(visits == 5)
        #expect(visited == Self.metadata.merging(["count": 3, "new": true]) { $1 })
        #expect(event.payloadCount == 5)
    }

    @Test func layeredAndFlatEventsWithTheSamePayloadAreEqualAndHashAlike() {
        let layered = Self.layered()
        var flat = layered
        flat.payload = Self.merged
        #expect(layered == flat)
        #expect(layered.hashValue == flat.hashValue)
        var different = flat
        different.setPayloadValue("other", forKey: "screen")
        #expect(layered != different)
        #expect(layered.estimatedEncodedSize == flat.estimatedEncodedSize)
    }

    @Test func settingWritesTheOwnLayerAndLeavesTheSharedOneAlone() {
        var event = Self.layered()
        event.setPayloadValue("Windows", forKey: "TelemetryDeck.Device.platform")
        event.setPayloadValue(true, forKey: "added")
        #expect(event.payloadValue(forKey: "TelemetryDeck.Device.platform") == "Windows")
        #expect(event.payload["added"] == .bool(true))
        #expect(event.payloadCount == 5)
        // Another event sharing the same metadata is unaffected.
        #expect(Self.layered().payloadValue(forKey: "TelemetryDeck.Device.platform") == "Linux")
    }

    @Test func removingASharedKeyRemovesItFromTheMergedView() {
        var event = Self.layered()
        event.setPayloadValue(nil, forKey: "TelemetryDeck.AppInfo.version")
        event.setPayloadValue(nil, forKey: "count")
        #expect(event.payload == ["TelemetryDeck.Device.platform": "Linux", "screen": "home"])
        // Removing an own key that shadows metadata removes the key entirely.
        event.setPayloadValue(nil, forKey: "screen")
        #expect(event.payloadValue(forKey: "screen") == nil)
        #expect(event.payloadCount == 1)
    }

    @Test func writingThroughPayloadMutatesTheMergedDictionary() {
        var event = Self.layered()
        event.payload["screen"] = "settings"
        event.payload.removeValue(forKey: "TelemetryDeck.Device.platform")
        #expect(
            event.payload == ["TelemetryDeck.AppInfo.version": "2.3.1", "screen": "settings", "count": 3]
        )
    }

    @Test func codableRoundTripOfALayeredEventIsFlatAndEqual() throws {
        let event = Self.layered()
        let data = try JSONEncoder().encode(event)
        let decoded = try JSONDecoder().decode(Event.self, from: data)
        #expect(decoded == event)
        #expect(decoded.payload == Self.merged)
    }

    @Test func finalizerKeepsMetadataAndParametersAsLayers() {
        // Two events with the same precomputed metadata: equal payload values, and the
        // input's parameters override metadata of the same key.
        let finalizer = EventFinalizer(appID: "APP")
        var context = EventContext()
        context.addParameters(Self.metadata)
        let first = finalizer.finalize(EventInput("A", parameters: ["screen": "home"]), context: context)
        let second = finalizer.finalize(EventInput("B", parameters: ["count": 7]), context: context)
        #expect(first.payload["screen"] == "home")
        #expect(second.payload["screen"] == "from-metadata")
        #expect(second.payload["count"] == .int(7))
        #expect(first.payloadCount == 3)
        #expect(second.payloadCount == 4)
    }
}
