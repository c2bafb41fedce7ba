public import TelemetryKitFileStorageSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Property-list files: one top-level dictionary of native plist values, like UserDefaults.
///
/// `Data` is `<data>`, `String` is `<string>`, `Int` is `<integer>`, `Bool` is `<true/>` or
/// `<false/>`, so the types stay distinct and the file reads with any plist tool. Writes
/// binary plists by default; reads binary and XML.
public struct PropertyListStorageFormat: ProcessorStorageFileFormat {
    /// The encoding used for writing.
    public var outputFormat: PropertyListDecoder.PropertyListFormat

    /// Writes binary property lists.
    public init() {
        self.init(outputFormat: .binary)
    }

    /// Writes property lists in `outputFormat` (`.binary` or `.xml`).
    public init(outputFormat: PropertyListDecoder.PropertyListFormat) {
        self.outputFormat = outputFormat
    }

    public var fileExtension: String { "plist" }

    public func encode(_ values: [String: StoredValue]) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = outputFormat
        return try encoder.encode(values.mapValues(PropertyListValue.init))
    }

    public func decode(_ data: Data) throws -> [String: StoredValue] {
        try PropertyListDecoder().decode([String: PropertyListValue].self, from: data).mapValues(\.value)
    }
}

/// A `StoredValue` as a plain plist scalar.
private struct PropertyListValue: Codable {
    let value: StoredValue

    init(_ value: StoredValue) {
        self.value = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Plist scalars carry their type, so at most one of these decodes succeeds.
        if let bool = try? container.decode(Bool.self) {
            value = .bool(bool)
        } else if let integer = try? container.decode(Int.self) {
            value = .integer(integer)
        } else if let string = try? container.decode(String.self) {
            value = .string(string)
        } else {
            value = .data(try container.decode(Data.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .data(let data): try container.encode(data)
        case .string(let string): try container.encode(string)
        case .integer(let integer): try container.encode(integer)
        case .bool(let bool): try container.encode(bool)
        }
    }
}
