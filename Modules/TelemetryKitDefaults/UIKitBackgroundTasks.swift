#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

/// UIKit's background tasks (`beginBackgroundTask(withName:expirationHandler:)`), which keep a
/// backgrounded app running for about 30 s while the client saves its state and sends its
/// queue. `Telemetry.initialize` installs it on iOS, tvOS and visionOS.
///
/// The application object is looked up at run time, not through `UIApplication.shared`, so this
/// builds into app extensions too, where there is none: there, as when called off the main
/// thread, no task is begun and the work simply runs.
public struct UIKitBackgroundTasks: BackgroundTaskProviding {
    public init() {}

    public func beginBackgroundTask(
        named name: String,
        onExpiration: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        // Lifecycle notifications arrive on the main thread, where UIKit is used.
        guard Thread.isMainThread else { return {} }
        return MainActor.assumeIsolated {
            guard let application = Self.application else { return {} }
            let identifier = application.beginBackgroundTask(withName: name, expirationHandler: onExpiration)
            guard identifier != .invalid else { return {} }
            return {
                Task { @MainActor in Self.application?.endBackgroundTask(identifier) }
            }
        }
    }

    /// `UIApplication.shared` through the Objective-C runtime: nil in an app extension.
    @MainActor private static var application: UIApplication? {
        let selector = NSSelectorFromString("sharedApplication")
        guard UIApplication.responds(to: selector) else { return nil }
        return UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
    }
}
#endif
