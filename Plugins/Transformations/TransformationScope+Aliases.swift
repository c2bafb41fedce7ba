public import TelemetryKit

extension TransformationScope {
    /// The spec's name for `afterProcessors`: after all collectors (processors) ran.
    public static var afterCollectors: TransformationScope { .afterProcessors }

    /// The spec's name for `allDestinations`.
    public static var allDispatchers: TransformationScope { .allDestinations }

    /// The spec's name for `destinations(_:)`: the listed destination ids only.
    public static func dispatchers(_ ids: [String]) -> TransformationScope {
        .destinations(Set(ids))
    }

    /// The scope written as JSON: `"afterprocessors"`, `"alldestinations"` (or the aliases
    /// `"aftercollectors"`, `"alldispatchers"`; any case), or an array of destination ids.
    ///
    /// Returns nil for any other value.
    public init?(json: JSONValue) {
        switch json {
        case .string(let name):
            switch name.lowercased() {
            case "afterprocessors", "aftercollectors": self = .afterProcessors
            case "alldestinations", "alldispatchers": self = .allDestinations
            default: return nil
            }
        case .array(let elements):
            var ids = Set<String>()
            for element in elements {
                guard case .string(let id) = element, !id.isEmpty else { return nil }
                ids.insert(id)
            }
            guard !ids.isEmpty else { return nil }
            self = .destinations(ids)
        default:
            return nil
        }
    }

    /// The scope's JSON form (destination ids sorted).
    public var json: JSONValue {
        switch self {
        case .afterProcessors: return "afterprocessors"
        case .allDestinations: return "alldestinations"
        case .destinations(let ids): return .array(ids.sorted().map(JSONValue.string))
        }
    }
}

/// Where a transformation runs for a given event: after the processors or for one destination.
public enum TransformationPoint: Sendable, Hashable, CustomStringConvertible {
    /// After the processors, before the events are cached.
    case afterProcessors
    /// Just before transmission to the destination with this id.
    case destination(String)

    /// The point for the `destination` argument of `EventTransformation.transform(_:destination:)`.
    public init(destination: String?) {
        self = destination.map(TransformationPoint.destination) ?? .afterProcessors
    }

    /// The destination id, or nil after the processors.
    public var destinationID: String? {
        if case .destination(let id) = self { return id }
        return nil
    }

    public var description: String {
        switch self {
        case .afterProcessors: return "after processors"
        case .destination(let id): return "destination '\(id)'"
        }
    }
}
