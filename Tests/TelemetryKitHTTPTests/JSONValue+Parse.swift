import TelemetryKitTransformations

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONValue {
    /// A request body parsed to check it by JSON type and value (whole numbers come back as
    /// `.int`, other numbers as `.double`).
    static func parse(_ bytes: some Sequence<UInt8>) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }
}
