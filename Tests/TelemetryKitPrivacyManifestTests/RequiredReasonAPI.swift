/// One of Apple's required-reason API categories: the calls Swift code reaches it through and
/// the reasons Apple accepts for it ("Describing use of required reason API", Apple developer
/// documentation).
///
/// App Store Connect scans an uploaded binary for these APIs and rejects it (ITMS-91053) when no
/// privacy manifest in the app declares the category with one of its reasons.
struct RequiredReasonAPI: Sendable {
    /// The `NSPrivacyAccessedAPIType` value.
    let category: String
    /// The `NSPrivacyAccessedAPITypeReasons` values Apple accepts for the category.
    let reasons: Set<String>
    /// C functions: a use is the name followed by `(`.
    let functions: Set<String>
    /// Foundation names (types, properties, keys): a use is the name as a whole word.
    let symbols: Set<String>

    /// `getattrlist` and its relatives read timestamps and volume capacity alike, so Apple lists
    /// them under both categories, and so does this table.
    static let attributeListFunctions: Set = ["getattrlist", "getattrlistbulk", "fgetattrlist", "getattrlistat"]

    static let fileTimestamp = RequiredReasonAPI(
        category: "NSPrivacyAccessedAPICategoryFileTimestamp",
        reasons: ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"],
        functions: attributeListFunctions.union(["stat", "fstat", "fstatat", "lstat"]),
        symbols: [
            "creationDate", "modificationDate", "fileModificationDate", "fileCreationDate", "contentModificationDate",
            "contentModificationDateKey", "creationDateKey", "NSFileCreationDate", "NSFileModificationDate",
            "NSURLContentModificationDateKey", "NSURLCreationDateKey",
        ]
    )

    static let systemBootTime = RequiredReasonAPI(
        category: "NSPrivacyAccessedAPICategorySystemBootTime",
        reasons: ["35F9.1", "8FFB.1", "3D61.1"],
        functions: ["mach_absolute_time"],
        // KERN_BOOTTIME: the sysctl that returns the boot time itself.
        symbols: ["systemUptime", "KERN_BOOTTIME"]
    )

    static let diskSpace = RequiredReasonAPI(
        category: "NSPrivacyAccessedAPICategoryDiskSpace",
        reasons: ["85F4.1", "E174.1", "7D9E.1", "B728.1"],
        functions: attributeListFunctions.union(["statfs", "statvfs", "fstatfs", "fstatvfs"]),
        symbols: [
            "volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
            "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey", "volumeAvailableCapacity",
            "volumeAvailableCapacityForImportantUsage", "volumeAvailableCapacityForOpportunisticUsage",
            "volumeTotalCapacity", "systemFreeSize", "systemSize", "NSFileSystemFreeSize", "NSFileSystemSize",
        ]
    )

    static let activeKeyboards = RequiredReasonAPI(
        category: "NSPrivacyAccessedAPICategoryActiveKeyboards",
        reasons: ["3EC4.1", "54BD.1"],
        functions: [],
        symbols: ["activeInputModes"]
    )

    static let userDefaults = RequiredReasonAPI(
        category: "NSPrivacyAccessedAPICategoryUserDefaults",
        reasons: ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"],
        functions: [],
        // SwiftUI's @AppStorage reads and writes UserDefaults.
        symbols: ["UserDefaults", "NSUserDefaults", "AppStorage"]
    )

    static let all = [fileTimestamp, systemBootTime, diskSpace, activeKeyboards, userDefaults]
}
