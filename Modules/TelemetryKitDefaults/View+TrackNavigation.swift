// SwiftUI only (Apple platforms); elsewhere this file compiles to nothing.
#if canImport(SwiftUI)
public import SwiftUI

extension View {
    /// Sends `TelemetryDeck.Navigation.pathChanged` to `path` (from the previous one) each
    /// time this view appears, as TelemetryDeck v3's modifier does.
    ///
    /// ```swift
    /// SettingsView().trackNavigation(path: "settings")
    /// ```
    public func trackNavigation(path: String) -> some View {
        onAppear {
            Task { await Telemetry.navigationPathChanged(to: path) }
        }
    }
}
#endif
