public import TelemetryKitFileStorageSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// JSON files with a type tag on every value, so no type is guessed back from JSON.
///
/// ```json
/// {"values":{"count":{"type":"int","value":3},"token":{"type":"data","value":"AAE="}},"version":1}
/// ```
/// `Data` is base64 text; `Int` and `Bool` stay distinct (`1` is never read back as `true`).
/// Keys are sorted, so equal contents give identical files.
public struct JSONStorageFormat: ProcessorStorageFileFormat {
    /// The layout version written into every file; other versions are not read.
    public static let version = 1

    public init() {}

    public var fileExtension: String { "json" }

    public func encode(_ values: [String: StoredValue]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(File(version: Self.version, values: values.mapValues(TaggedValue.init)))
    }

    public func decode(_ data: Data) throws -> [String: StoredValue] {
        let file = try JSONDecoder().decode(File.self, from: data)
        guard file.version == Self.version else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [File.CodingKeys.version],
                    debugDescription: "Unsupported storage file version \(file.version) (expected \(Self.version))"
                )
            )
        }
        return file.values.mapValues(\.value)
    }
}

private struct File: Codable {
    enum CodingKeys: String, CodingKey {
        case version, values
    }

    var version: Int
    var values: [String: TaggedValue]
}

/// `{"type": "<kind>", "value": <value>}`.
private struct TaggedValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    private enum Kind: String, Codable {
        case data, string, int, bool
    }

    let value: StoredValue

    init(_ value: StoredValue) {
        self.value = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .data: value = .data(try container.decode(Data.self, forKey: .value))
        case .string: value = .string(try container.decode(String.self, forKey: .value))
        case .int: value = .integer(try container.decode(Int.self, forKey: .value))
        case .bool: value = .bool(try container.decode(Bool.self, forKey: .value))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .data(let data):
            try container.encode(Kind.data, forKey: .type)
            try container.encode(data, forKey: .value)
        case .string(let string):
            try container.encode(Kind.string, forKey: .type)
            try container.encode(string, forKey: .value)
        case .integer(let integer):
            try container.encode(Kind.int, forKey: .type)
            try container.encode(integer, forKey: .value)
        case .bool(let bool):
            try container.encode(Kind.bool, forKey: .type)
            try container.encode(bool, forKey: .value)
        }
    }
}
