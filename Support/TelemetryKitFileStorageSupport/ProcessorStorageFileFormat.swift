#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How a `FileBackedProcessorStorage` turns its values into file contents and back.
///
/// The storage does everything else (memory, coalescing, atomic writes, recovery); a format
/// only encodes and decodes one whole file.
///
/// ## Implementation requirements
/// - `decode(encode(values)) == values` for every dictionary, including empty strings and
///   data, `Int.min`/`Int.max`, and keys with any characters.
/// - Keep the four `StoredValue` cases distinct: `.integer(1)` and `.bool(true)` must not
///   decode as each other.
/// - `decode` throws on anything it did not write (garbage, truncation, unknown layout);
///   the storage then moves the file aside and starts empty. It must never crash.
public protocol ProcessorStorageFileFormat: Sendable {
    /// The format with its default settings (what a storage opened without a format uses).
    init()

    /// The file name extension, without the dot (`"plist"`, `"json"`).
    var fileExtension: String { get }

    /// Encodes every value of a storage into one file's contents.
    func encode(_ values: [String: StoredValue]) throws -> Data

    /// Decodes one file's contents; throws when they are not a valid file of this format.
    func decode(_ data: Data) throws -> [String: StoredValue]
}
