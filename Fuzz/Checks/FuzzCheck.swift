/// One reader of outside bytes and what its result must satisfy, for libFuzzer and for the
/// corpus tests.
///
/// Bad input must end in a typed error, never a crash. When the reader accepts the input, its
/// result must survive what the SDK does next with it (encode it, read it again, compact it),
/// so a check also states those properties and throws ``FuzzCheckFailure`` when one breaks.
/// A crash inside the reader is a failure too: the fuzz target stops there and libFuzzer keeps
/// the input.
///
/// ```swift
/// try FuzzCheck.eventJSON.run(bytes)       // in a test: a failure throws
/// FuzzCheck.eventJSON.runOrTrap(start, count)   // in LLVMFuzzerTestOneInput
/// ```
package enum FuzzCheck: String, CaseIterable, Sendable {
    /// `EventJSONCodec.decode`: the cache line and wire format of one event.
    case eventJSON = "EventJSON"
    /// `TransformationConfiguration.load(json:lenient:)`: transformation settings files.
    case transformationSettings = "TransformationSettings"
    /// `JSONLinesJournal.parse`: the JSON-lines cache's journal as found on disk.
    case jsonLinesJournal = "JSONLinesJournal"
    /// The collector's `IngestParser`: request bodies from the network (trait Tools).
    case ingestRequest = "IngestRequest"

    /// Whether this build has the reader (the collector exists only with the Tools trait, and
    /// is reached with `@testable import`, so only in debug builds).
    package var isAvailable: Bool {
        switch self {
        case .eventJSON, .transformationSettings, .jsonLinesJournal: return true
        case .ingestRequest: return Self.ingestParserAvailable
        }
    }

    /// Runs the reader on `bytes` and checks its result.
    /// - Throws: ``FuzzCheckFailure`` naming the broken property.
    package func run(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        switch self {
        case .eventJSON: try Self.checkEventJSON(bytes)
        case .transformationSettings: try Self.checkTransformationSettings(bytes)
        case .jsonLinesJournal: try Self.checkJSONLinesJournal(bytes)
        case .ingestRequest: try Self.checkIngestRequest(bytes)
        }
    }

    /// The body of `LLVMFuzzerTestOneInput`: a broken property stops the process, so libFuzzer
    /// records the input as a crash.
    package func runOrTrap(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        do {
            try run(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
        } catch {
            fatalError("\(rawValue): \(error)")
        }
    }
}

/// A property the reader's result broke.
package struct FuzzCheckFailure: Error, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
