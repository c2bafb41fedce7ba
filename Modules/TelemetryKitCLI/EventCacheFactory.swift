#if Tools
import Foundation
import TelemetryKit

/// The one place the CLI chooses its durable event cache.
///
/// It returns the CLI's journal cache until the SQLite cache is available; swapping the
/// backend changes this function only.
func makeEventCache(directory: URL, logger: any Logging) throws -> any EventCaching {
    try JournalEventCache(directory: directory, logger: logger)
}
#endif
