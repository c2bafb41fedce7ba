/// Extra running time that a platform grants an app which has just gone to the background.
///
/// Why: on `.didEnterBackground` the client saves its processors' state and sends its queue,
/// but iOS suspends a backgrounded app within seconds, usually in the middle of that HTTP
/// request. Inside a background task the app keeps running (about 30 s) until the work is
/// done; when the time runs out first, the client cancels the send (the events stay in the
/// durable cache for the next launch) and ends the task at once, as the system demands of an
/// app that does not want to be killed.
///
/// `TelemetryKitDefaults` provides UIKit's background tasks on iOS, tvOS and visionOS and
/// `Telemetry.initialize` installs them. A client built by hand sets
/// ``TelemetryClient/backgroundTasks``; servers and CLIs need none.
///
/// ```swift
/// struct RecordingBackgroundTasks: BackgroundTaskProviding {
///     func beginBackgroundTask(
///         named name: String,
///         onExpiration: @escaping @Sendable () -> Void
///     ) -> @Sendable () -> Void {
///         print("begin \(name)")
///         return { print("end \(name)") }
///     }
/// }
/// client.backgroundTasks = RecordingBackgroundTasks()
/// ```
///
/// ## Implementation requirements
/// - Return the closure that ends the task; the client calls it exactly once.
/// - Call `onExpiration` at most once, when the granted time is about to run out. The client
///   ends the task from inside it, before it returns.
/// - Where no task can be had (an app extension, a call off the main thread where the
///   platform needs it), return a closure that does nothing: the work still runs.
public protocol BackgroundTaskProviding: Sendable {
    /// Asks for running time for the work named `name`; returns the closure that ends it.
    func beginBackgroundTask(named name: String, onExpiration: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}
