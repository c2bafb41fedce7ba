import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

/// TelemetryDeck v3 code reads parameters back with plain casts (`params["plan"] as? String`);
/// each value must come back as the Swift type it was given as, never boxed.
struct ParameterReadBackTests {
    static let date = Date(timeIntervalSince1970: 1_750_000_000)
    static let uuid = UUID(uuidString: "6F1D2C3B-4A5E-4F60-8A7B-9C0D1E2F3A4B")!

    @Test func literalValuesCastToTheirSwiftTypes() {
        let parameters: EventParameters = [
            "plan": "pro", "seats": 3, "ratio": 0.25, "trial": true, "since": Self.date, "device": Self.uuid,
            "small": Int32(7), "single": Float(1.5),
        ]

        #expect(parameters["plan"] as? String == "pro")
        #expect(parameters["seats"] as? Int == 3)
        #expect(parameters["ratio"] as? Double == 0.25)
        #expect(parameters["trial"] as? Bool == true)
        #expect(parameters["since"] as? Date == Self.date)
        #expect(parameters["device"] as? UUID == Self.uuid)
        #expect(parameters["small"] as? Int32 == 7)
        #expect(parameters["single"] as? Float == 1.5)
        // A value given as one type does not read as another.
        #expect(parameters["seats"] as? String == nil)
        #expect(parameters["plan"] as? Int == nil)
        #expect(parameters["missing"] == nil)
        // What the event carries is unchanged.
        #expect(parameters.values["since"] == .string("2025-06-15T15:06:40.000Z"))
        #expect(parameters.values["device"] == .string("6F1D2C3B-4A5E-4F60-8A7B-9C0D1E2F3A4B"))
        #expect(parameters.values["small"] == .int(7))
    }

    @Test func stringDictionariesAndPayloadValuesReadAsPlainValues() {
        let strings = EventParameters(["plan": "pro"])
        let payloads = EventParameters(["count": PayloadValue.int(4), "flag": .bool(false), "x": .double(2.5)])
        let typed = EventParameters(["a": 1, "b": 2])
        let dated = EventParameters(["at": Self.date])

        #expect(strings["plan"] as? String == "pro")
        #expect(payloads["count"] as? Int == 4)
        #expect(payloads["flag"] as? Bool == false)
        #expect(payloads["x"] as? Double == 2.5)
        #expect(typed["b"] as? Int == 2)
        #expect(dated["at"] as? Date == Self.date)
    }

    @Test func settingAndRemovingKeepsReadsInStep() {
        var parameters: EventParameters = ["at": Self.date]
        parameters["at"] = "later"
        #expect(parameters["at"] as? String == "later")
        #expect(parameters["at"] as? Date == nil)

        parameters["id"] = Self.uuid
        #expect(parameters["id"] as? UUID == Self.uuid)
        parameters["id"] = nil
        #expect(parameters["id"] == nil)
        #expect(parameters.values["id"] == nil)

        // Changing `values` directly wins over what was given before.
        parameters["when"] = Self.date
        parameters.values["when"] = .int(5)
        #expect(parameters["when"] as? Int == 5)
        #expect(parameters["when"] as? Date == nil)

        parameters.set("typed", Self.uuid)
        #expect(parameters["typed"] as? UUID == Self.uuid)
        #expect(parameters.removeValue(forKey: "typed") == .string(Self.uuid.uuidString))
        #expect(parameters["typed"] == nil)
    }

    @Test func mergingKeepsTheGivenTypesAndTheNewerValueWins() {
        var base: EventParameters = ["at": Self.date, "plan": "free"]
        base.merge(["at": "overridden", "id": Self.uuid])
        #expect(base["at"] as? String == "overridden")
        #expect(base["id"] as? UUID == Self.uuid)
        #expect(base["plan"] as? String == "free")

        let merged = EventParameters(["n": 1]).merging(["since": Self.date])
        #expect(merged["since"] as? Date == Self.date)
        #expect(merged["n"] as? Int == 1)
    }

    @Test func iterationYieldsTheGivenValues() {
        let parameters: EventParameters = ["plan": "pro", "since": Self.date, "seats": 2]
        var seen: [String: String] = [:]
        for (key, value) in parameters {
            switch value {
            case let text as String: seen[key] = "String \(text)"
            case let number as Int: seen[key] = "Int \(number)"
            case let date as Date: seen[key] = "Date \(date.timeIntervalSince1970)"
            default: seen[key] = "other"
            }
        }
        #expect(seen == ["plan": "String pro", "seats": "Int 2", "since": "Date 1750000000.0"])
    }

    @Test func equalityAndHashingLookAtThePayloadOnly() {
        let given: EventParameters = ["at": Self.date]
        let asPayload = EventParameters(["at": PayloadValue.string("2025-06-15T15:06:40.000Z")])
        #expect(given == asPayload)
        #expect(Set([given, asPayload]).count == 1)
    }

    @Test func metadataReadsBackAsGiven() {
        var context = EventContext()
        context.addParameter("App.theme", value: "dark")
        context.addParameter("App.seats", value: 3)
        context.addParameter("App.beta", value: true)
        context.addParameter("App.installed", value: Self.date)
        context.addParameters(["App.channel": "beta"])
        context.addParameters(EventParameters(["App.device": Self.uuid]))

        let metadata: EventParameters = context.metadata
        #expect(metadata["App.theme"] as? String == "dark")
        #expect(metadata["App.seats"] as? Int == 3)
        #expect(metadata["App.beta"] as? Bool == true)
        #expect(metadata["App.installed"] as? Date == Self.date)
        #expect(metadata["App.channel"] as? String == "beta")
        #expect(metadata["App.device"] as? UUID == Self.uuid)

        // A later addition or removal wins over the earlier value.
        context.addParameter("App.installed", value: "unknown")
        context.removeParameter("App.device")
        #expect(context.metadata["App.installed"] as? String == "unknown")
        #expect(context.metadata["App.device"] == nil)
    }

    @Test func theFinalizedPayloadIsUnchangedByOriginals() {
        var context = EventContext(userIdentifier: "u")
        context.addParameter("App.installed", value: Self.date)
        let event = EventFinalizer.test.finalize(
            EventInput("Screen.shown", parameters: ["id": Self.uuid]),
            context: context
        )
        #expect(
            event.payload == [
                "App.installed": .string("2025-06-15T15:06:40.000Z"),
                "id": .string("6F1D2C3B-4A5E-4F60-8A7B-9C0D1E2F3A4B"),
            ]
        )
    }
}

/// TelemetryDeck v3's `Event.isTestMode` is a string; ours reads the same.
struct EventTestModeSpellingTests {
    @Test func isTestModeReadsAsV3sString() {
        var event = Event(appID: "A", type: "T", clientUser: "u", receivedAt: Date(), isTestMode: true)
        #expect(event.isTestMode == "true")
        event.isTestMode = "false"
        #expect(event.isTestMode == "false")
    }
}

/// TelemetryDeck v3's `InMemoryEventCache` calls, used by v3-era tests.
struct InMemoryEventCacheV3Tests {
    @Test func addPopAndCountAsInV3() async throws {
        let cache = InMemoryEventCache()
        let first = Event(appID: "A", type: "First", clientUser: "u", receivedAt: Date(timeIntervalSince1970: 1))
        let second = Event(appID: "A", type: "Second", clientUser: "u", receivedAt: Date(timeIntervalSince1970: 2))
        let third = Event(appID: "A", type: "Third", clientUser: "u", receivedAt: Date(timeIntervalSince1970: 3))

        await cache.add(first)
        await cache.add([second, third])
        #expect(await cache.count() == 3)
        #expect(try await cache.peek(limit: 1).map(\.type) == ["First"])

        let popped = await cache.pop()
        #expect(popped.map(\.type) == ["First", "Second", "Third"])
        #expect(await cache.count() == 0)
        #expect(await cache.pop().isEmpty)
    }
}
