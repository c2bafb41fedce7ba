import TelemetryKit
import TelemetryKitTransformations
import Testing

@Suite struct SetDataValuesTests {
    @Test func copiesAndSetsConstantsInOrder() async throws {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "ops")
                .setConstant("high_value", to: .key("user_segment"))
                .setFrom(.key("user_segment"), to: .key("segment_copy"))
                .setFrom(.key("raw_email"), to: .key("email"))
                .setConstant(42, to: .key("answer"))
                .setFrom(.key("event_name"), to: .key("original_name"))
        )
        let result = await run(
            makeTransformations(config),
            on: makeEvent("purchase", payload: ["raw_email": "A@B.com"])
        )
        #expect(
            result?.payload == [
                "raw_email": "A@B.com", "email": "A@B.com", "user_segment": "high_value",
                "segment_copy": "high_value", "answer": 42, "original_name": "purchase",
            ]
        )
        #expect(result?.type == "purchase")
    }

    @Test func missingSourceIsSkipped() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "copy-email").setFrom(.key("raw_email"), to: .key("email"))
        )
        let result = await run(makeTransformations(config), on: makeEvent(payload: ["email": "kept@x.com"]))
        #expect(result?.payload == ["email": "kept@x.com"])
    }

    @Test func settingEventNameRenamesTheEvent() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "rename").setConstant("Checkout.completed", to: .key("event_name"))
        )
        let result = await run(makeTransformations(config), on: makeEvent("purchase", payload: ["a": 1]))
        #expect(result?.type == "Checkout.completed")
        #expect(result?.payload == ["a": 1])
    }
}

@Suite struct LowercaseTests {
    @Test func allValuesLeavesSDKKeysNumbersAndTheNameAlone() async {
        var config = TransformationConfiguration()
        config.setTransformation(LowercaseSettingsBuilder(id: "normalize").lowercaseAllVariables())
        let event = makeEvent(
            "Purchase.Completed",
            payload: [
                "email": "Ada@Example.COM", "city": "Zürich", "count": 3, "flag": true, "price": 2.5,
                "TelemetryDeck.Device.platform": "Linux", "already": "lower",
            ]
        )
        let result = await run(makeTransformations(config), on: event)
        #expect(
            result?.payload == [
                "email": "ada@example.com", "city": "zürich", "count": 3, "flag": true, "price": 2.5,
                "TelemetryDeck.Device.platform": "Linux", "already": "lower",
            ]
        )
        #expect(result?.type == "Purchase.Completed")
    }

    @Test func listedVariablesOnly() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            LowercaseSettingsBuilder(id: "some")
                .lowercaseVariables([.key("email"), .key("event_name"), .key("count"), .key("missing")])
        )
        let event = makeEvent("Purchase", payload: ["email": "A@B.C", "city": "Paris", "count": 3])
        let result = await run(makeTransformations(config), on: event)
        #expect(result?.payload == ["email": "a@b.c", "city": "Paris", "count": 3])
        #expect(result?.type == "purchase")
    }

    @Test func reservedKeysAreLoweredWhenListed() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            LowercaseSettingsBuilder(id: "sdk").lowercaseVariables([.key("TelemetryDeck.Device.platform")])
        )
        let result = await run(
            makeTransformations(config),
            on: makeEvent(payload: ["TelemetryDeck.Device.platform": "Linux"])
        )
        #expect(result?.payload == ["TelemetryDeck.Device.platform": "linux"])
    }
}
