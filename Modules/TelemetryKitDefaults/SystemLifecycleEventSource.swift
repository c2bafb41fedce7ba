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
///
/// ## Launched in the background
///
/// A silent push, a background task or a HealthKit wake launches an app in the background,
/// where it posts no notification until the user opens it. So that such a launch counts no
/// session, `subscribe` reports `.didEnterBackground` at once when the app is in the
/// background (UIKit's and WatchKit's `applicationState`); the session processor then waits
/// for `.willEnterForeground`. The state can only be read on the main thread: subscribed
/// elsewhere, or in an app extension (which has no application state), the launch counts as
/// one in the foreground, as before. `Telemetry.initialize` subscribes on its caller's actor,
/// so call it from the main actor (`App.init`, `application(_:didFinishLaunchingWithOptions:)`,
/// a SwiftUI `.task`). A Mac app is in the foreground when launched.
///
/// An app with scenes (every SwiftUI app) is in the background state until its first scene
/// connects, also when the user opened it, so a launch reported in the background may come to
/// the foreground a moment later. That arrival is reported as `.willEnterForeground` whether
/// the system posts `willEnterForeground` or only `didBecomeActive`, once.
public struct SystemLifecycleEventSource: LifecycleEventSource {
    public init() {}

    /// The notification that also reports the app's arrival in the foreground, once, after a
    /// `.didEnterBackground` that no `willEnterForeground` followed (see "Launched in the
    /// background"); nil where `notifications` maps it already.
    static var becameActive: Notification.Name? {
        #if os(watchOS)
        return WKApplication.didBecomeActiveNotification
        #elseif canImport(UIKit)
        return UIApplication.didBecomeActiveNotification
        #else
        return nil
        #endif
    }

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
        // Whether the last of background and foreground reported was the background.
        let inBackground = Locked(false)
        let report: @Sendable (AppLifecycle.Signal) -> Void = { signal in
            if signal == .didEnterBackground || signal == .willEnterForeground {
                inBackground.set(signal == .didEnterBackground)
            }
            handler(signal)
        }
        var tokens = Self.notifications.map { entry in
            let signal = entry.signal
            // No queue: the handler runs on the posting (main) thread before the app moves on.
            return NotificationCenter.default.addObserver(forName: entry.name, object: nil, queue: nil) { _ in
                report(signal)
            }
        }
        if let becameActive = Self.becameActive {
            tokens.append(
                NotificationCenter.default.addObserver(forName: becameActive, object: nil, queue: nil) { _ in
                    if inBackground.current { report(.willEnterForeground) }
                }
            )
        }
        // After the observers are in place: a change from now on is reported by them.
        if Self.applicationIsInBackground {
            report(.didEnterBackground)
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

    /// Whether the app runs in the background now. False off the main thread (UIKit's state
    /// may not be read there, and waiting for the main thread could deadlock a caller that
    /// blocks it), in app extensions, and on macOS.
    static var applicationIsInBackground: Bool {
        guard Thread.isMainThread, !Bundle.main.bundlePath.hasSuffix(".appex") else { return false }
        return MainActor.assumeIsolated {
            // The shared application through the Objective-C runtime, so that this builds into
            // app extensions too (as in `UIKitBackgroundTasks`).
            let selector = NSSelectorFromString("sharedApplication")
            #if os(watchOS)
            guard WKApplication.responds(to: selector),
                let application = WKApplication.perform(selector)?.takeUnretainedValue() as? WKApplication
            else { return false }
            return application.applicationState == .background
            #elseif canImport(UIKit)
            guard UIApplication.responds(to: selector),
                let application = UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
            else { return false }
            return application.applicationState == .background
            #else
            return false
            #endif
        }
    }
}
#endif
