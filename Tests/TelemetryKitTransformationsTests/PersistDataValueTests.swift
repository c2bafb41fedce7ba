import TelemetryKit
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct PersistDataValueTests {
    let storage = InMemoryProcessorStorage()
    let clock = ManualClock()
    let logger = RecordingLogger()

    /// Persists `plan` from login events as `user_plan`.
    func configuration(
        expiry: PersistenceExpiry,
        policy: PersistenceUpdatePolicy = .allowUpdate
    ) -> TransformationConfiguration {
        var config = TransformationConfiguration()
        config.setTransformation(
            PersistDataValueSettingsBuilder(id: "remember-plan")
                .persist(.key("plan"), as: .key("user_plan"))
                .setExpiry(expiry)
                .setUpdatePolicy(policy)
                .setConditions(.just(.equals(variable: "event_name", target: "login")))
        )
        return config
    }

    func instance(_ config: TransformationConfiguration) -> [any EventTransformation] {
        config.transformations(storage: storage, logger: logger, clock: clock)
    }

    func plan(
        _ transformations: [any EventTransformation],
        _ name: String,
        session: String? = "S1"
    ) async
        -> PayloadValue?
    {
        await run(transformations, on: makeEvent(name, sessionID: session))?.payload["user_plan"]
    }

    @Test func foreverSurvivesANewInstance() async {
        let config = configuration(expiry: .forever)
        let first = instance(config)
        let login = await run(first, on: makeEvent("login", payload: ["plan": "pro"]))
        #expect(login?.payload == ["plan": "pro", "user_plan": "pro"])
        #expect(await plan(first, "view") == "pro")
        #expect(storage.keys == ["TelemetryKit.Transformations.PersistDataValue.remember-plan.user_plan"])

        clock.advance(by: 365 * 86_400)
        #expect(await plan(instance(config), "view", session: "S9") == "pro")
    }

    @Test func sessionExpiryEndsWhenTheSessionChanges() async {
        let transformations = instance(configuration(expiry: .session))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"], sessionID: "S1"))
        #expect(await plan(transformations, "view", session: "S1") == "pro")
        #expect(await plan(transformations, "view", session: "S2") == nil)
        #expect(await plan(transformations, "view", session: "S1") == nil)
        #expect(storage.keys.isEmpty)
    }

    @Test func untilRestartIsGoneInANewInstance() async {
        let config = configuration(expiry: .untilRestart)
        let first = instance(config)
        _ = await run(first, on: makeEvent("login", payload: ["plan": "pro"]))
        #expect(await plan(first, "view") == "pro")
        clock.advance(by: 86_400)
        #expect(await plan(first, "view", session: "S2") == "pro")

        let second = instance(config)
        #expect(await plan(second, "view") == nil)
        #expect(storage.keys.isEmpty)
    }

    @Test func durationExpiresByTheClock() async {
        let transformations = instance(configuration(expiry: .duration(60)))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"]))
        clock.advance(by: 59)
        #expect(await plan(transformations, "view", session: "S2") == "pro")
        clock.advance(by: 1)
        #expect(await plan(transformations, "view") == nil)
    }

    @Test func keepFirstValue() async {
        let transformations = instance(configuration(expiry: .forever, policy: .keepFirstValue))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "basic"]))
        let second = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"]))
        // The event's own plan stays; the persisted value is still the first one.
        #expect(second?.payload == ["plan": "pro", "user_plan": "basic"])
        #expect(await plan(transformations, "view") == "basic")
    }

    @Test func keepFirstValueStoresAgainAfterExpiry() async {
        let transformations = instance(configuration(expiry: .duration(10), policy: .keepFirstValue))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "basic"]))
        clock.advance(by: 11)
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"]))
        #expect(await plan(transformations, "view") == "pro")
    }

    @Test func allowUpdateReplaces() async {
        let transformations = instance(configuration(expiry: .forever))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "basic"]))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"]))
        #expect(await plan(transformations, "view") == "pro")
        #expect(await plan(instance(configuration(expiry: .forever)), "view") == "pro")
    }

    @Test func theEventsOwnValueWins() async {
        let transformations = instance(configuration(expiry: .forever))
        _ = await run(transformations, on: makeEvent("login", payload: ["plan": "pro"]))
        let event = await run(transformations, on: makeEvent("view", payload: ["user_plan": "trial"]))
        #expect(event?.payload == ["user_plan": "trial"])
    }

    @Test func persistsAConstant() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            PersistDataValueSettingsBuilder(id: "onboarded")
                .persistConstant(true, as: .key("onboarded"))
                .setConditions(.just(.equals(variable: "event_name", target: "Onboarding.finished")))
        )
        let transformations = instance(config)
        #expect(await run(transformations, on: makeEvent("view"))?.payload == [:])
        _ = await run(transformations, on: makeEvent("Onboarding.finished"))
        #expect(await run(transformations, on: makeEvent("view"))?.payload == ["onboarded": true])
    }

    @Test func unreadableStoredValueIsRemovedWithAWarning() async {
        let key = "TelemetryKit.Transformations.PersistDataValue.remember-plan.user_plan"
        await storage.set(Data("not json".utf8), forKey: key)
        #expect(await plan(instance(configuration(expiry: .forever)), "view") == nil)
        #expect(storage.keys.isEmpty)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains(key) == true)
    }
}
