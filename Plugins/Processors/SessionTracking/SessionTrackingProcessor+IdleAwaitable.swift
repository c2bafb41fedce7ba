public import TelemetryKit

/// The client waits for the session history saved on `.didEnterBackground` before it flushes
/// the storage (see `IdleAwaitable`).
extension SessionTrackingProcessor: IdleAwaitable {}
