#if canImport(UIKit) || canImport(AppKit) || canImport(WatchKit)
import Foundation
import TelemetryKitSupport

#if os(watchOS)
import WatchKit
#elseif canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The app lifecycle as the system reports it, through `NotificationCenter`.
///
/// - iOS, iPadOS, tvOS, visionOS, Mac Catalyst (UIKit): `didEnterBackground`,
///   `willEnterForeground`, `willTerminate` of `UIApplication`.
/// - macOS (AppKit): `didResignActive` counts as entering the background and
///   `didBecomeActive` as returning (as TelemetryDeck's SDK did), plus `willTerminate`.
/// - watchOS (WatchKit): `didEnterBackground` and `willEnterForeground` of `WKApplication`.
///
/// `Telemetry.initialize` connects it by default; a client built by hand follows it with
/// `client.lifecycle.follow(SystemLifecycleEventSource())`. App extensions get none of these
/// notifications: give them a source of their own (see ``LifecycleEventSource``).
public struct SystemLifecycleEventSource: LifecycleEventSource {
    public init() {}

    /// The notifications observed and the signal each one reports.
    static var notifications: [(name: Notification.Name, signal: AppLifecycle.Signal)] {
        #if os(watchOS)
        return [
            (WKApplication.didEnterBackgroundNotification, .didEnterBackground),
            (WKApplication.willEnterForegroundNotification, .willEnterForeground),
        ]
        #elseif canImport(UIKit)
        return [
            (UIApplication.didEnterBackgroundNotification, .didEnterBackground),
            (UIApplication.willEnterForegroundNotification, .willEnterForeground),
            (UIApplication.willTerminateNotification, .willTerminate),
        ]
        #else
        return [
            (NSApplication.didResignActiveNotification, .didEnterBackground),
            (NSApplication.didBecomeActiveNotification, .willEnterForeground),
            (NSApplication.willTerminateNotification, .willTerminate),
        ]
        #endif
    }

    public func subscribe(_ handler: @escaping @Sendable (AppLifecycle.Signal) -> Void) -> LifecycleSubscription {
        let tokens = Self.notifications.map { entry in
            let signal = entry.signal
            // No queue: the handler runs on the posting (main) thread before the app moves on.
            return NotificationCenter.default.addObserver(forName: entry.name, object: nil, queue: nil) { _ in
                handler(signal)
            }
        }
        let observers = Locked(tokens)
        return LifecycleSubscription {
            let removed = observers.withLock { tokens -> [any NSObjectProtocol] in
                defer { tokens = [] }
                return tokens
            }
            for token in removed {
                NotificationCenter.default.removeObserver(token)
            }
        }
    }
}
#endif
