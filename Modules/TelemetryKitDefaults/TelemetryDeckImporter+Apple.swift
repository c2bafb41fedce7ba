#if canImport(Darwin)
import Foundation
import TelemetryKitInMemoryStorage

extension TelemetryDeckImporter {
    /// A value of TelemetryDeck's suite, in the types `ProcessorStorage` knows.
    private enum SuiteValue {
        case data(Data)
        case string(String)
        case strings([String])
        case integer(Int)
    }

    /// TelemetryDeck's keys in its `UserDefaults` suite, copied into memory; nil when the
    /// suite holds none of them. Read through `UserDefaults(suiteName:)` as TelemetryDeck's
    /// SDK read them.
    static func appleSuiteStorage(suiteName: String) async -> (any ProcessorStorage)? {
        guard let defaults = UserDefaults(suiteName: suiteName) else { return nil }
        var values: [(String, SuiteValue)] = []
        for key in TelemetryDeckStoredState.allKeys {
            switch defaults.object(forKey: key) {
            case let data as Data: values.append((key, .data(data)))
            case let string as String: values.append((key, .string(string)))
            case let strings as [String]: values.append((key, .strings(strings)))
            case let number as NSNumber: values.append((key, .integer(number.intValue)))
            default: continue
            }
        }
        guard !values.isEmpty else { return nil }
        let snapshot = InMemoryProcessorStorage()
        for (key, value) in values {
            switch value {
            case .data(let data): await snapshot.set(data, forKey: key)
            case .string(let string): await snapshot.set(string, forKey: key)
            case .strings(let strings): await snapshot.set(strings, forKey: key)
            case .integer(let integer): await snapshot.set(integer, forKey: key)
            }
        }
        return snapshot
    }

    /// The v2 and v3 event queues in the user's caches directory, oldest format first.
    static func appleEventFiles() -> [URL] {
        guard let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first else { return [] }
        return [version2EventCacheFileName, eventCacheFileName].map { caches.appendingPathComponent($0) }
    }
}
#endif
