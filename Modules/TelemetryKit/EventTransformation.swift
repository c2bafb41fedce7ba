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
    func transform(_ event: consuming Event, destination: String?) async -> Event?

    /// An optional synchronous fast path, tried before ``transform(_:destination:)``:
    /// change `event` in place and return `.kept` or `.dropped` when the work needs no
    /// suspension (the async method is then not called), or return `.needsAsync` with
    /// `event` untouched. The default returns `.needsAsync`. Built-in transformations
    /// implement it: an async call and a hand-over of the event per transformation cost
    /// more than a cheap transformation itself.
    func transformImmediately(_ event: inout Event, destination: String?) -> ImmediateTransformation
}

extension EventTransformation {
    public var order: Int { Int.max }

    public func transformImmediately(_ event: inout Event, destination: String?) -> ImmediateTransformation {
        .needsAsync
    }
}

/// The outcome of ``EventTransformation/transformImmediately(_:destination:)``.
public enum ImmediateTransformation: Sendable, Hashable {
    /// Done; the event (changed in place or not) goes on.
    case kept
    /// Done; the event is dropped for this scope.
    case dropped
    /// Not handled synchronously (event untouched): call the async `transform`.
    case needsAsync
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
    public func applies(to destination: String?) -> Bool {
        switch self {
        case .afterProcessors: return destination == nil
        case .allDestinations: return destination != nil
        case .destinations(let ids): return destination.map { ids.contains($0) } ?? false
        }
    }
}
