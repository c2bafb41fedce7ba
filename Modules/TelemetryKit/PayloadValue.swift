#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value in a finalized event's payload, encoded as a native JSON type.
///
/// Integers stay integers (`Int64`), floating-point values stay numbers, booleans stay
/// booleans. Non-finite doubles (NaN, ±infinity) have no JSON representation; they are
/// encoded as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` so that encoding never fails.
public enum PayloadValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    /// The value rendered as a string, the way a dashboard shows it.
    public var stringValue: String {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return PayloadValue.format(value)
        case .bool(let value): return value ? "true" : "false"
        }
    }

    /// The value as the Swift value it stands for: a `String`, an `Int`, a `Double` or a
    /// `Bool`, so that `parameters["plan"] as? String` reads it as v3 code expects.
    @inlinable
    var swiftValue: any ParameterValue {
        switch self {
        case .string(let value): return value
        case .int(let value): return Int(truncatingIfNeeded: value)
        case .double(let value): return value
        case .bool(let value): return value
        }
    }

    /// `true` for `.double` values that JSON cannot represent.
    package var isNonFiniteNumber: Bool {
        if case .double(let value) = self { return !value.isFinite }
        return false
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return String(value)
    }
}

extension PayloadValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "A payload value must be a string, integer, number or boolean."
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value):
            if value.isFinite {
                try container.encode(value)
            } else {
                try container.encode(PayloadValue.format(value))
            }
        case .bool(let value): try container.encode(value)
        }
    }
}

extension PayloadValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PayloadValue: CustomStringConvertible {
    public var description: String { stringValue }
}
