#if canImport(Network)
import Foundation
import Network
import TelemetryKitSupport

/// The device's network path (`NWPathMonitor`) and Low Power Mode, as ``DeliveryConditions``.
///
/// `Telemetry.initialize` follows it on Apple platforms, so a phone without network makes no
/// doomed attempts, and Low Data Mode and Low Power Mode are honoured as each destination's
/// ``DeliveryPolicy`` says. A client built by hand follows it with
/// `client.follow(SystemDeliveryConditions())`.
public struct SystemDeliveryConditions: DeliveryConditionsSource {
    public init() {}

    public func conditions() -> AsyncStream<DeliveryConditions> {
        AsyncStream { continuation in
            let state = Locked(DeliveryConditions(isLowPowerModeEnabled: ProcessInfo.processInfo.isLowPowerModeEnabled))
            let report: @Sendable (@Sendable (inout DeliveryConditions) -> Void) -> Void = { change in
                continuation.yield(
                    state.withLock { conditions in
                        change(&conditions)
                        return conditions
                    }
                )
            }
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in
                report { conditions in
                    conditions.isOnline = path.status == .satisfied
                    conditions.isExpensive = path.isExpensive
                    conditions.isConstrained = path.isConstrained
                }
            }
            let power = NotificationCenter.default.addObserver(
                forName: .NSProcessInfoPowerStateDidChange,
                object: nil,
                queue: nil
            ) { _ in
                let enabled = ProcessInfo.processInfo.isLowPowerModeEnabled
                report { $0.isLowPowerModeEnabled = enabled }
            }
            let observer = Locked<(any NSObjectProtocol)?>(power)
            // The monitor reports the current path first, then each change.
            monitor.start(queue: DispatchQueue(label: "TelemetryKit.SystemDeliveryConditions"))
            continuation.onTermination = { _ in
                monitor.cancel()
                if let token = observer.withLock({ token in
                    defer { token = nil }
                    return token
                }) {
                    NotificationCenter.default.removeObserver(token)
                }
            }
        }
    }
}
#endif
