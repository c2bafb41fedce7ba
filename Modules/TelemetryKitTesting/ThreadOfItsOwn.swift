import Foundation

/// Runs `body`, which blocks (a loop of file operations, a socket read), on a thread started
/// for it, and returns its result.
///
/// Why not on the test's own thread: that is one of Swift's cooperative threads, as many as
/// the machine has cores. A test blocking one for seconds holds up every other test's async
/// work meanwhile, and tests talking to a loopback server time out.
///
/// ```swift
/// let status = try await onThreadOfItsOwn { try connection.blockingReadStatus() }
/// ```
package func onThreadOfItsOwn<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
