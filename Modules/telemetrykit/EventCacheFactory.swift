#if Tools
import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache

/// The one place the CLI chooses its durable event cache: SQLite, `events.sqlite` in
/// `directory`.
func makeEventCache(directory: URL, logger: any Logging) throws -> any EventCaching {
    try SQLiteEventCache(fileURL: directory.appendingPathComponent("events.sqlite"), logger: logger)
}
#endif
