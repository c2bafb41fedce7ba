import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport
@testable import TelemetryKitPlistStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The property-list file format of `PlistProcessorStorage`.
struct PlistFormatTests {
    @Test func theFileIsAPlainPropertyListDictionary() async throws {
        struct Contents: Decodable, Equatable {
            var name: String
            var count: Int
            var enabled: Bool
            var blob: Data
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try StorageKind.plist.makeStorage(directory)
        await storage.store([
            "name": .string("Ada"), "count": .integer(12), "enabled": .bool(false), "blob": .data(Data([1, 2, 3])),
        ])

        let bytes = try Data(contentsOf: storage.fileURL)
        #expect(bytes.starts(with: Data("bplist00".utf8)))
        var format = PropertyListDecoder.PropertyListFormat.xml
        let decoded = try PropertyListDecoder().decode(Contents.self, from: bytes, format: &format)
        #expect(decoded == Contents(name: "Ada", count: 12, enabled: false, blob: Data([1, 2, 3])))
        #expect(format == .binary)
    }

    @Test func anXMLPropertyListWrittenElsewhereIsRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>flag</key><true/>
                <key>one</key><integer>1</integer>
                <key>text</key><string>1</string>
                <key>bytes</key><data>AAEC</data>
            </dict>
            </plist>
            """
        try Data(xml.utf8).write(to: directory.file("TelemetryKit.plist"))
        let storage = try StorageKind.plist.makeStorage(directory)
        await storage.expectValuesWrittenElsewhere()
    }
}
