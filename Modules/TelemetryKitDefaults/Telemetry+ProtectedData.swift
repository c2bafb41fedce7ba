import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
#endif
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// The data protection class of the SDK's files (Apple's `FileProtectionType`), named here so
/// that the setting exists on every platform; it takes effect on iOS-family devices.
public enum FileProtection: Sendable, Hashable {
    /// No protection.
    case none
    /// Readable once the device was unlocked after starting (the default).
    case completeUntilFirstUserAuthentication
    /// Files open before the device locked stay readable; new ones cannot be created locked.
    case completeUnlessOpen
    /// Readable only while the device is unlocked: a background launch on a locked device
    /// cannot open the queue, and its events wait in memory until the device is unlocked.
    case complete
}

/// Tells `Telemetry.initialize` whether files protected until the first unlock can be opened
/// now, and when they become openable.
///
/// Why: a silent push or a background task can launch an app after a reboot, before the user
/// unlocked the device; protected files cannot be opened then. Rather than fail, `initialize`
/// keeps the events the app sends in memory (the buffer of events sent before `initialize`,
/// bounded and counted in ``Telemetry/droppedBeforeInitializeCount``) and opens the queue and
/// the storage when the data becomes available, replaying those events in order.
///
/// `UIKitProtectedData` is the default in apps on iOS, tvOS and visionOS; tests inject their
/// own through ``Telemetry/protectedDataSource``.
///
/// ## Implementation requirements
/// - `whenAvailable` calls its handler once, on any thread, when the data becomes available
///   (not when it already is), until the subscription is cancelled.
public protocol ProtectedDataSource: Sendable {
    /// Whether protected files can be opened now.
    func isAvailable() async -> Bool
    /// Calls `handler` once the protected files become available.
    func whenAvailable(_ handler: @escaping @Sendable () -> Void) -> LifecycleSubscription
}

#if canImport(UIKit) && !os(watchOS)
/// `UIApplication`'s protected-data state and notification. In an app extension, where there
/// is no application object, data counts as available (an extension runs for a user who
/// unlocked the device).
public struct UIKitProtectedData: ProtectedDataSource {
    public init() {}

    public func isAvailable() async -> Bool {
        await MainActor.run {
            let selector = NSSelectorFromString("sharedApplication")
            guard UIApplication.responds(to: selector),
                let application = UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
            else { return true }
            return application.isProtectedDataAvailable
        }
    }

    public func whenAvailable(_ handler: @escaping @Sendable () -> Void) -> LifecycleSubscription {
        let token = NotificationCenter.default.addObserver(
            forName: UIApplication.protectedDataDidBecomeAvailableNotification,
            object: nil,
            queue: nil
        ) { _ in handler() }
        let observer = Locked<(any NSObjectProtocol)?>(token)
        return LifecycleSubscription {
            if let token = observer.withLock({ token -> (any NSObjectProtocol)? in
                defer { token = nil }
                return token
            }) {
                NotificationCenter.default.removeObserver(token)
            }
        }
    }
}
#endif

extension Telemetry {
    private static let protectedData = Locked<(any ProtectedDataSource)?>(defaultProtectedDataSource)
    /// The retry of an `initialize` that waits for protected data.
    private static let waitingForProtectedData = Locked<LifecycleSubscription?>(nil)

    /// Where `initialize` learns whether protected files can be opened (see
    /// ``ProtectedDataSource``): `UIKitProtectedData` in apps on iOS, tvOS and visionOS, none
    /// elsewhere (an unusable data directory is then an error). Set it before `initialize`.
    public static var protectedDataSource: (any ProtectedDataSource)? {
        get { protectedData.current }
        set { protectedData.set(newValue) }
    }

    static var defaultProtectedDataSource: (any ProtectedDataSource)? {
        #if canImport(UIKit) && !os(watchOS)
        return UIKitProtectedData()
        #else
        return nil
        #endif
    }

    /// Whether `initialize`, which failed with `error`, waits for protected data instead: the
    /// data directory could not be used and the source says protected data is unavailable.
    /// Then `retry` runs once the data is available, and events stay buffered meanwhile.
    static func waitsForProtectedData(
        after error: TelemetryError,
        logger: any Logging,
        retry: @escaping @Sendable () async -> Void
    ) async -> Bool {
        guard error.code == .unusableDataDirectory, let source = protectedDataSource, await !source.isAvailable()
        else { return false }
        logger.log(
            .warning,
            "Telemetry.initialize: the device has not been unlocked since it started, so the queue cannot be "
                + "opened yet; events are kept in memory and sent once it is unlocked"
        )
        let subscription = source.whenAvailable {
            Task { await retry() }
        }
        // One wait at a time: an `initialize` called again while locked replaces the first.
        waitingForProtectedData.withLock { waiting -> LifecycleSubscription? in
            defer { waiting = subscription }
            return waiting
        }?.cancel()
        return true
    }

    /// Stops waiting for protected data (`terminate`, or an `initialize` that got through).
    static func stopWaitingForProtectedData() {
        waitingForProtectedData.withLock { subscription -> LifecycleSubscription? in
            defer { subscription = nil }
            return subscription
        }?.cancel()
    }

    /// Gives the default data directory the configured protection before anything opens a
    /// file in it; files created there later inherit it. iOS-family devices only: elsewhere
    /// not even the directory is looked up.
    static func applyFileProtection(for configuration: Config) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard let directory = try? defaultDataDirectory(for: configuration) else { return }
        let type: FileProtectionType
        switch configuration.fileProtection {
        case .none: type = .none
        case .completeUntilFirstUserAuthentication: type = .completeUntilFirstUserAuthentication
        case .completeUnlessOpen: type = .completeUnlessOpen
        case .complete: type = .complete
        }
        let files = FileManager.default
        try? files.createDirectory(at: directory, withIntermediateDirectories: true)
        // The files of an earlier launch keep the class they were made with; give them this one.
        let paths =
            [directory.path]
            + ((try? files.contentsOfDirectory(atPath: directory.path)) ?? []).map {
                directory.appendingPathComponent($0).path
            }
        for path in paths {
            try? files.setAttributes([.protectionKey: type], ofItemAtPath: path)
        }
        #endif
    }
}
