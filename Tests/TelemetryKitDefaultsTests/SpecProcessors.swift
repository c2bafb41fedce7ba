import Foundation
import TelemetryKitDefaults

// The processors of spec/01 ("Writing Custom Processors"), written against the public API.
// They are what these tests check — that the spec's examples compile and behave as the spec
// says — so they stay written out as the spec shows them, not replaced by the look-alike
// doubles of TelemetryKitTesting (`ParameterAddingProcessor`, `FilteringProcessor`,
// `PassThroughProcessor`).

struct ABTestProcessor: EventProcessor {
    let variant: String

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var ctx = context
        ctx.addParameter("ABTest.variant", value: variant)
        return try await next(input, ctx)
    }
}

struct InternalScreenFilter: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        if input.name.hasPrefix("Internal.") {
            throw ProcessorError.eventFiltered
        }
        return try await next(input, context)
    }
}

struct ScreenNameSanitizer: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var modified = input
        modified.name = modified.name
            .replacingOccurrences(of: " ", with: ".")
        return try await next(modified, context)
    }
}

actor SubscriptionTierProcessor: EventProcessor {
    private var storage: (any ProcessorStorage)?
    private var tier: String = "free"

    func start(
        storage: any ProcessorStorage,
        logger: any Logging,
        emitter: any EventSending
    ) async {
        self.storage = storage
        if let saved = await storage.string(forKey: "subscriptionTier") {
            tier = saved
        }
    }

    func updateTier(_ newTier: String) async {
        tier = newTier
        await storage?.set(newTier, forKey: "subscriptionTier")
    }

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var ctx = context
        ctx.addParameter("Subscription.tier", value: tier)
        return try await next(input, ctx)
    }
}

actor WatchdogProcessor: EventProcessor {
    private var emitter: (any EventSending)?
    private(set) var seen: [String] = []

    func start(
        storage: any ProcessorStorage,
        logger: any Logging,
        emitter: any EventSending
    ) async {
        self.emitter = emitter
    }

    func reportAnomaly(_ description: String) async {
        await emitter?.send(
            EventInput(
                name: "Watchdog.anomalyDetected",
                parameters: ["description": description]
            )
        )
    }

    private func record(_ name: String) {
        seen.append(name)
    }

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        record(input.name)
        return try await next(input, context)
    }
}

struct MyProcessor: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        try await next(input, context)
    }
}
