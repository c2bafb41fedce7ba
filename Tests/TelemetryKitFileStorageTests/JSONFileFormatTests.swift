import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport
@testable import TelemetryKitJSONFileStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The typed JSON file format of `JSONFileProcessorStorage`.
struct JSONFileFormatTests {
    @Test func theFileTagsEveryValueWithItsType() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try StorageKind.json.makeStorage(directory)
        await storage.store(["s": .string("x"), "i": .integer(1), "b": .bool(true), "d": .data(Data([0, 1]))])

        let text = String(decoding: try Data(contentsOf: storage.fileURL), as: UTF8.self)
        #expect(
            text
                == #"{"values":{"b":{"type":"bool","value":true},"d":{"type":"data","value":"AAE="},"#
                + #""i":{"type":"int","value":1},"s":{"type":"string","value":"x"}},"version":1}"#
        )
    }

    @Test func aFileWrittenElsewhereIsReadWithItsTypes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let json = """
            {
              "version": 1,
              "values": {
                "flag": {"type": "bool", "value": true},
                "one": {"type": "int", "value": 1},
                "big": {"type": "int", "value": 9223372036854775807},
                "text": {"type": "string", "value": "1"},
                "bytes": {"type": "data", "value": "AAEC"}
              }
            }
            """
        try Data(json.utf8).write(to: directory.file("TelemetryKit.json"))
        let storage = try StorageKind.json.makeStorage(directory)
        await storage.expectValuesWrittenElsewhere()
        #expect(await storage.integer(forKey: "big") == Int.max)
    }
}
