import Foundation

/// A `PrivacyInfo.xcprivacy` file, as Apple's keys spell it.
struct PrivacyManifest: Decodable, Equatable {
    /// The keys Xcode's privacy report reads; every manifest of the package has all four, so
    /// that what is not collected or not tracked is said, not left to a default.
    static let topLevelKeys: Set = [
        "NSPrivacyTracking", "NSPrivacyTrackingDomains", "NSPrivacyCollectedDataTypes", "NSPrivacyAccessedAPITypes",
    ]

    struct CollectedDataType: Decodable, Equatable {
        var type: String
        var isLinkedToIdentity: Bool
        var isUsedForTracking: Bool
        var purposes: [String]

        enum CodingKeys: String, CodingKey {
            case type = "NSPrivacyCollectedDataType"
            case isLinkedToIdentity = "NSPrivacyCollectedDataTypeLinked"
            case isUsedForTracking = "NSPrivacyCollectedDataTypeTracking"
            case purposes = "NSPrivacyCollectedDataTypePurposes"
        }
    }

    struct AccessedAPIType: Decodable, Equatable {
        var category: String
        var reasons: [String]

        enum CodingKeys: String, CodingKey {
            case category = "NSPrivacyAccessedAPIType"
            case reasons = "NSPrivacyAccessedAPITypeReasons"
        }
    }

    var tracking: Bool
    var trackingDomains: [String]
    var collectedDataTypes: [CollectedDataType]
    var accessedAPITypes: [AccessedAPIType]

    enum CodingKeys: String, CodingKey {
        case tracking = "NSPrivacyTracking"
        case trackingDomains = "NSPrivacyTrackingDomains"
        case collectedDataTypes = "NSPrivacyCollectedDataTypes"
        case accessedAPITypes = "NSPrivacyAccessedAPITypes"
    }

    /// The file's top-level keys, read as a property list in its own right (the decoder would
    /// ignore a misspelt key).
    static func topLevelKeys(of data: Data) throws -> Set<String> {
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = plist as? [String: Any] else { return [] }
        return Set(dictionary.keys)
    }

    init(contentsOf url: URL) throws {
        self = try PropertyListDecoder().decode(PrivacyManifest.self, from: Data(contentsOf: url))
    }

    /// The categories declared, each with its reasons.
    var declaredReasons: [String: [String]] {
        Dictionary(accessedAPITypes.map { ($0.category, $0.reasons) }, uniquingKeysWith: +)
    }
}
