/// Something that finishes work in the background and can be waited for.
///
/// Processors react to lifecycle signals synchronously (the signal's sender must not wait)
/// and persist what changed a moment later. When the app goes to the background the client
/// waits for every processor that adopts this protocol before it flushes the storage, so the
/// state written on that signal (a session's length, say) reaches the disk while the app
/// may still run.
///
/// ```swift
/// extension SessionTrackingProcessor: IdleAwaitable {}   // it has `waitUntilIdle()`
/// ```
///
/// ## Implementation requirements
/// - `waitUntilIdle()` returns once the work started so far (and any started meanwhile)
///   has finished; it never waits for future signals.
public protocol IdleAwaitable: Sendable {
    /// Waits until the work started so far has finished.
    func waitUntilIdle() async
}
