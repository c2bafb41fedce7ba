import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs one `PersistDataValue` transformation.
///
/// The persisted entry is read from storage once, then kept in memory; changes are written
/// through. Concurrent writers (one transformation in several destination scopes) store the
/// same value for the same event; otherwise the last write wins.
final class PersistDataValueTransformer: Sendable {
    enum Source: Sendable, Hashable {
        case variable(VariableAccessor)
        case constant(PayloadValue)
    }

    struct Plan: Sendable, Hashable {
        var source: Source
        var target: VariableAccessor
        var expiry: PersistenceExpiry
        var updatePolicy: PersistenceUpdatePolicy

        init(reader: SettingsReader) throws(TransformationSettingsError) {
            typealias Keys = PersistDataValueSettingsBuilder.Keys
            let members = try reader.object()
            let from = reader.optional(Keys.from, in: members)
            let constant = reader.optional(Keys.constant, in: members)
            let to = reader.optional(Keys.to, in: members)
            switch (from, constant) {
            case (let from?, nil):
                let variable = try from.variable()
                source = .variable(variable)
                target = try to?.variable() ?? variable
            case (nil, let constant?):
                source = .constant(try constant.scalar())
                target = try reader.required(Keys.to, in: members).variable()
            case (nil, nil):
                throw reader.error(.missingField, field: reader.fieldPath(Keys.from))
            case (_?, _?):
                throw reader.error(.invalidValue("give either 'from' or 'constant', not both"))
            }
            if let expiryReader = reader.optional(Keys.expiry, in: members) {
                guard let expiry = PersistenceExpiry(json: expiryReader.value) else {
                    throw expiryReader.error(
                        .invalidValue(
                            "expected \"session\", \"forever\", \"untilrestart\" or a positive number of seconds"
                        )
                    )
                }
                self.expiry = expiry
            } else {
                expiry = .forever
            }
            if let policyReader = reader.optional(Keys.updatePolicy, in: members) {
                let name = try policyReader.string()
                guard let policy = PersistenceUpdatePolicy(rawValue: name.lowercased()) else {
                    throw policyReader.error(.invalidValue("expected \"allow_update\" or \"keep_first_value\""))
                }
                updatePolicy = policy
            } else {
                updatePolicy = .allowUpdate
            }
        }
    }

    /// What is stored, as JSON `Data`, under ``storageKey``.
    struct Entry: Codable, Sendable, Hashable {
        enum Kind: String, Codable, Sendable {
            case session, forever, untilRestart, duration
        }

        var value: PayloadValue
        var kind: Kind
        /// The session the value belongs to (`.session`).
        var sessionID: String?
        /// The instance that stored the value (`.untilRestart`).
        var launchID: String?
        /// Seconds since 1970 after which the value is gone (`.duration`).
        var expiresAt: Double?
    }

    private struct State {
        var isLoaded = false
        var entry: Entry?
    }

    /// The prefix of the storage keys; the transformation id and target key follow.
    static let storageKeyPrefix = "TelemetryKit.Transformations.PersistDataValue."

    let plan: Plan
    let storageKey: String
    private let storage: any ProcessorStorage
    private let logger: any Logging
    private let clock: any TelemetryClock
    private let launchID = UUID().uuidString
    private let state = Locked(State())

    init(plan: Plan, transformationID: String, context: TransformerContext) {
        self.plan = plan
        self.storageKey = Self.storageKeyPrefix + transformationID + "." + plan.target.key
        self.storage = context.storage
        self.logger = context.logger
        self.clock = context.clock
    }

    func apply(to event: Event) async -> Event {
        await loadIfNeeded()
        let newValue: PayloadValue?
        switch plan.source {
        case .variable(let variable): newValue = event.value(for: variable)
        case .constant(let value): newValue = value
        }
        let now = clock.now
        let (current, expired, changed) = state.withLock { state -> (Entry?, Bool, Entry?) in
            let expired = state.entry.map { isExpired($0, for: event, now: now) } ?? false
            if expired { state.entry = nil }
            guard let newValue, plan.updatePolicy == .allowUpdate || state.entry == nil else {
                return (state.entry, expired, nil)
            }
            let entry = makeEntry(newValue, for: event, now: now)
            guard entry != state.entry else { return (state.entry, expired, nil) }
            state.entry = entry
            return (entry, expired, entry)
        }
        if let changed {
            await write(changed)
        } else if expired {
            await storage.removeValue(forKey: storageKey)
        }
        return inject(current, into: event)
    }

    /// Runs when the conditions are not met: injects the value if it has not expired.
    func bypass(_ event: Event) async -> Event {
        await loadIfNeeded()
        let now = clock.now
        let (current, expired) = state.withLock { state -> (Entry?, Bool) in
            guard let entry = state.entry else { return (nil, false) }
            if isExpired(entry, for: event, now: now) {
                state.entry = nil
                return (nil, true)
            }
            return (entry, false)
        }
        if expired { await storage.removeValue(forKey: storageKey) }
        return inject(current, into: event)
    }

    private func inject(_ entry: Entry?, into event: Event) -> Event {
        guard let entry, event.value(for: plan.target) == nil else { return event }
        var event = event
        event.setValue(entry.value, for: plan.target)
        return event
    }

    private func isExpired(_ entry: Entry, for event: Event, now: Date) -> Bool {
        switch entry.kind {
        case .forever: return false
        case .session: return entry.sessionID != event.sessionID
        case .untilRestart: return entry.launchID != launchID
        case .duration: return now.timeIntervalSince1970 >= (entry.expiresAt ?? 0)
        }
    }

    private func makeEntry(_ value: PayloadValue, for event: Event, now: Date) -> Entry {
        switch plan.expiry {
        case .forever: return Entry(value: value, kind: .forever)
        case .session: return Entry(value: value, kind: .session, sessionID: event.sessionID)
        case .untilRestart: return Entry(value: value, kind: .untilRestart, launchID: launchID)
        case .duration(let seconds):
            return Entry(value: value, kind: .duration, expiresAt: now.timeIntervalSince1970 + seconds)
        }
    }

    private func loadIfNeeded() async {
        if state.withLock({ $0.isLoaded }) { return }
        // Concurrent first calls may both read; the first to finish wins. No write happens
        // before loading completes, so both read the same stored entry.
        var loaded: Entry?
        if let data = await storage.data(forKey: storageKey) {
            do {
                loaded = try JSONDecoder().decode(Entry.self, from: data)
            } catch {
                logger.log(
                    .warning,
                    "PersistDataValue: unreadable stored value for '\(storageKey)' was removed: \(error)"
                )
                await storage.removeValue(forKey: storageKey)
            }
        }
        state.withLock { state in
            guard !state.isLoaded else { return }
            state.isLoaded = true
            state.entry = loaded
        }
    }

    private func write(_ entry: Entry) async {
        do {
            await storage.set(try JSONEncoder().encode(entry), forKey: storageKey)
        } catch {
            logger.log(.error, "PersistDataValue: cannot encode the value for '\(storageKey)': \(error)")
        }
    }
}
