import TelemetryKitSupport

#if canImport(UIKit)
import Foundation
#endif

extension Telemetry {
    private static let lifecycleSource = Locked<(any LifecycleEventSource)?>(defaultLifecycleEventSource)
    private static let lifecycleSubscription = Locked<LifecycleSubscription?>(nil)
    private static let importer = Locked(TelemetryDeckImporter.standard)

    /// Where the next `initialize` gets app lifecycle signals from: by default the system's
    /// notifications on Apple platforms (`SystemLifecycleEventSource`) and none elsewhere.
    ///
    /// Set it before `initialize` to use another source (an app extension's, SwiftUI's
    /// `scenePhase`), or to nil to drive `Telemetry.client?.lifecycle` by hand. Without
    /// signals, sessions do not rotate and queued events are sent only by the timer.
    public static var lifecycleEventSource: (any LifecycleEventSource)? {
        get { lifecycleSource.current }
        set { lifecycleSource.set(newValue) }
    }

    /// What the next `initialize` imports from TelemetryDeck's SDK before the client starts:
    /// ``TelemetryDeckImporter/standard`` by default (a no-op where TelemetryDeck kept
    /// nothing), ``TelemetryDeckImporter/disabled`` to import nothing.
    public static var telemetryDeckImporter: TelemetryDeckImporter {
        get { importer.current }
        set { importer.set(newValue) }
    }

    private static let backgroundTaskProvider = Locked<(any BackgroundTaskProviding)?>(defaultBackgroundTasks)

    /// Where the next `initialize` gets running time for saving and sending after the app
    /// went to the background: UIKit's background tasks on iOS, tvOS and visionOS
    /// (`UIKitBackgroundTasks`), none elsewhere. Set it to nil before `initialize` to send
    /// only while the system happens to let the app run.
    public static var backgroundTasks: (any BackgroundTaskProviding)? {
        get { backgroundTaskProvider.current }
        set { backgroundTaskProvider.set(newValue) }
    }

    static var defaultBackgroundTasks: (any BackgroundTaskProviding)? {
        #if os(watchOS)
        return ExpiringActivityBackgroundTasks()
        #elseif canImport(UIKit)
        // An app extension has no `UIApplication`; the system grants it time another way.
        return Bundle.main.bundlePath.hasSuffix(".appex") ? ExpiringActivityBackgroundTasks() : UIKitBackgroundTasks()
        #else
        return nil
        #endif
    }

    private static let conditionsSource = Locked<(any DeliveryConditionsSource)?>(defaultDeliveryConditionsSource)

    /// Where the next `initialize` learns whether the device is online, on an expensive or
    /// constrained (Low Data Mode) path, or in Low Power Mode: the system's network path
    /// monitor and power state on Apple platforms (`SystemDeliveryConditions`), none
    /// elsewhere (always online). Set it before `initialize` to use another source, e.g. in a
    /// test that takes the network away.
    public static var deliveryConditionsSource: (any DeliveryConditionsSource)? {
        get { conditionsSource.current }
        set { conditionsSource.set(newValue) }
    }

    static var defaultDeliveryConditionsSource: (any DeliveryConditionsSource)? {
        #if canImport(Network)
        return SystemDeliveryConditions()
        #else
        return nil
        #endif
    }

    static var defaultLifecycleEventSource: (any LifecycleEventSource)? {
        #if canImport(UIKit) || canImport(AppKit) || canImport(WatchKit)
        return SystemLifecycleEventSource()
        #else
        return nil
        #endif
    }

    /// The facade's work between building the client and starting it (called by
    /// `initialize`): import TelemetryDeck's data while no processor has read the storage
    /// yet, then connect the lifecycle source and the background tasks to the new client
    /// (replacing the previous client's connection).
    static func prepareStart(of client: TelemetryClient) async {
        await telemetryDeckImporter.run(into: client, destinationID: defaultDestinationID)
        client.backgroundTasks = backgroundTasks
        if let source = deliveryConditionsSource { client.follow(source) }
        let subscription = lifecycleEventSource.map { client.lifecycle.follow($0) }
        let previous = lifecycleSubscription.withLock { current -> LifecycleSubscription? in
            defer { current = subscription }
            return current
        }
        previous?.cancel()
    }

    /// Stops a client that `initialize` started but whose default queue could not be opened,
    /// and leaves the facade waiting for the next `initialize` as if this one had not begun:
    /// the lifecycle source is disconnected, the analytics choice made before it is pending
    /// again (unless a later one replaced it), and the events, durations and navigation
    /// recorded before it were never handed over. What the processors' start stored (a
    /// session counted, the install seen) stays, and so their first events are sent from
    /// memory by the client's shutdown (its queue never opened).
    static func abandonStart(of client: TelemetryClient, analyticsChoice: Bool?) async {
        let subscription = lifecycleSubscription.withLock { current -> LifecycleSubscription? in
            defer { current = nil }
            return current
        }
        subscription?.cancel()
        await client.shutdown()
        state.withLock { state in
            if state.gathered.analyticsChoice == nil { state.gathered.analyticsChoice = analyticsChoice }
            state.phase = .waiting
            state.configuration = nil
        }
    }
}
