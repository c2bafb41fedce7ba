/// A change applied to finalized events at a given point of their trip.
///
/// Transformations with scope ``TransformationScope/afterProcessors`` run once per event,
/// after the pipeline and before the caches; the others run per destination, just before
/// the batch is transmitted, once per event: a batch kept for a retry is sent again with
/// the results of its first round (events cached by an earlier launch are transformed again).
/// Within a scope they run by ascending `order`; equal orders keep registration order.
///
/// ## Implementation requirements
/// - Return the (possibly changed) event, or `nil` to drop it for this scope only.
/// - `destination` is `nil` for `.afterProcessors` and the destination id otherwise.
/// - Never crash on unexpected payloads; pass the event through and log instead.
public protocol EventTransformation: Sendable {
    var id: String { get }
    /// Lower runs first. Default `Int.max` (last).
    var order: Int { get }
    var scope: TransformationScope { get }
    /// The event is handed over (`consuming`), so a transformation that changes it does not
    /// copy its payload; a conformance may still declare a plain `_ event: Event` parameter.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`): a transformation that
    /// does not suspend costs a function call, and one run from an awaited send on the main
    /// actor does not hop off it. A conformance's plain `async` method is inferred so; one
    /// that blocks (a file, a lock held long) declares it `@concurrent`.
    nonisolated(nonsending) func transform(_ event: consuming Event, destination: String?) async -> Event?
}

extension EventTransformation {
    public var order: Int { Int.max }
}

/// Where a transformation runs.
public enum TransformationScope: Sendable, Hashable {
    /// Once per event, after the processors, before the events are cached.
    case afterProcessors
    /// Before transmission, for every destination.
    case allDestinations
    /// Before transmission, for the listed destination ids only.
    case destinations(Set<String>)

    /// Whether a transformation with this scope runs for `destination` (`nil` = after processors).
    package func applies(to destination: String?) -> Bool {
        switch self {
        case .afterProcessors: return destination == nil
        case .allDestinations: return destination != nil
        case .destinations(let ids): return destination.map { ids.contains($0) } ?? false
        }
    }
}
