public import Foundation
public import TelemetryKit
import TelemetryKitSupport

/// Adds hardware and platform facts to every event: the 13 `TelemetryDeck.Device.*` and
/// `TelemetryDeck.RunContext.*` keys of ``Keys``.
///
/// Everything is gathered once, in `init` (see ``DeviceInfo/current()``; on Linux
/// ``DeviceInfo/linux(fileSystemRoot:kernel:isDebug:)`` documents the sources and
/// fallbacks). Per event the processor adds one precomputed dictionary. The only value that
/// depends on the event is the time zone: it is the UTC offset *at the event's timestamp*,
/// so events on either side of a daylight-saving change carry the right offset. Offsets are
/// kept per period between two transitions, so the time zone database is consulted once per
/// period, not per event.
///
/// ```swift
/// let processor = DeviceProcessor()                                  // the running system
/// let pinned = DeviceProcessor(timeZone: TimeZone(secondsFromGMT: 19_800) ?? .gmt,
///                              info: .linux(fileSystemRoot: "/tmp/fake-root"))
/// ```
public struct DeviceProcessor: SynchronousEventProcessor {
    /// The facts this processor sends.
    public let info: DeviceInfo
    /// The time zone whose UTC offset is sent as ``Keys/timeZone``.
    public let timeZone: TimeZone

    /// The offset period around the creation time: the lock-free fast path.
    private let currentPeriod: TimeZonePeriod
    /// The last period that an event outside `currentPeriod` needed.
    private let otherPeriod = Locked<TimeZonePeriod?>(nil)
    private let baseParameters: [String: PayloadValue]

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - timeZone: The time zone to report (default: the system's).
    ///   - info: The device facts (default: read from the running system, once).
    public init(timeZone: TimeZone = .current, info: DeviceInfo = .current()) {
        self.info = info
        self.timeZone = timeZone
        self.baseParameters = info.parameters
        self.currentPeriod = TimeZonePeriod(containing: Date(), timeZone: timeZone, base: baseParameters)
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.addParameters(parameters(at: input.timestamp))
    }

    /// Every parameter this processor adds for an event created at `date`.
    public func parameters(at date: Date) -> [String: PayloadValue] {
        if currentPeriod.contains(date) { return currentPeriod.parameters }
        return otherPeriod.withLock { cached in
            if let cached, cached.contains(date) { return cached.parameters }
            let period = TimeZonePeriod(containing: date, timeZone: timeZone, base: baseParameters)
            cached = period
            return period.parameters
        }
    }

    /// Formats a UTC offset as `UTC+H` or `UTC+H:MM`.
    ///
    /// Hours have no leading zero; minutes appear only when not zero; seconds are dropped.
    /// `0` → `UTC+0`, `7200` → `UTC+2`, `19800` → `UTC+5:30`, `20700` → `UTC+5:45`,
    /// `-34200` → `UTC-9:30`, `-1800` → `UTC-0:30`.
    ///
    /// - Parameter secondsFromGMT: The offset east of Greenwich, in seconds.
    public static func formattedTimeZone(secondsFromGMT: Int) -> String {
        let totalMinutes = secondsFromGMT.magnitude / 60
        let hours = totalMinutes / 60
        let minutes = totalMinutes % 60
        let sign = secondsFromGMT < 0 && totalMinutes > 0 ? "-" : "+"
        if minutes == 0 { return "UTC\(sign)\(hours)" }
        return "UTC\(sign)\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
    }
}

/// A span of time during which a time zone keeps one UTC offset, with the parameters for it.
struct TimeZonePeriod: Sendable {
    /// Inclusive.
    let start: Date
    /// Exclusive.
    let end: Date
    let parameters: [String: PayloadValue]

    /// How far back to look for the transition that began the period. Real zones change at
    /// least yearly when they change at all; with no transition in this window the offset
    /// was constant throughout it.
    private static let lookBack: TimeInterval = 400 * 86_400

    init(containing date: Date, timeZone: TimeZone, base: [String: PayloadValue]) {
        var start = date.addingTimeInterval(-TimeZonePeriod.lookBack)
        var cursor = start
        var foundLatestTransition = false
        // A handful of transitions at most; the bound guards against a misbehaving database.
        for _ in 0..<16 {
            guard let transition = timeZone.nextDaylightSavingTimeTransition(after: cursor), transition <= date else {
                foundLatestTransition = true
                break
            }
            start = transition
            cursor = transition
        }
        // Without the latest transition the period can only be known to start at `date`.
        self.start = foundLatestTransition ? start : date
        self.end = timeZone.nextDaylightSavingTimeTransition(after: date) ?? .distantFuture
        var parameters = base
        parameters[DeviceProcessor.Keys.timeZone] = .string(
            DeviceProcessor.formattedTimeZone(secondsFromGMT: timeZone.secondsFromGMT(for: date))
        )
        self.parameters = parameters
    }

    func contains(_ date: Date) -> Bool {
        date >= start && date < end
    }
}
