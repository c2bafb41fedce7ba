import Foundation

/// The id of a process that has exited and been reaped: what a killed sender or a crashed app
/// leaves in a lease or a session record, for tests of what the next process does with it.
///
/// The child (`/bin/sh -c "exit 0"`) is waited for on a thread of its own, not on the test's
/// cooperative thread (see ``onThreadOfItsOwn(_:)``).
///
/// ```swift
/// let killed = try SQLiteEventCache(fileURL: url, leaseProcess: try await exitedProcessIdentifier())
/// ```
package func exitedProcessIdentifier() async throws -> Int32 {
    try await onThreadOfItsOwn {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
