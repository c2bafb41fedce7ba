#if canImport(UIKit) && (os(iOS) || os(tvOS) || os(visionOS))
import UIKit

extension AccessibilitySnapshot {
    @MainActor
    static func uiKit() -> AccessibilitySnapshot {
        let traits = UITraitCollection.current
        var snapshot = AccessibilitySnapshot(
            isBoldTextEnabled: UIAccessibility.isBoldTextEnabled,
            isReduceMotionEnabled: UIAccessibility.isReduceMotionEnabled,
            preferredContentSizeCategory: contentSizeCategoryName(
                rawValue: traits.preferredContentSizeCategory.rawValue
            )
        )
        switch traits.userInterfaceStyle {
        case .dark: snapshot.colorScheme = "Dark"
        case .light: snapshot.colorScheme = "Light"
        default: break
        }
        switch traits.layoutDirection {
        case .leftToRight: snapshot.layoutDirection = "leftToRight"
        case .rightToLeft: snapshot.layoutDirection = "rightToLeft"
        default: break
        }
        #if !os(visionOS)
        let bounds = UIScreen.main.bounds
        snapshot.screenResolutionWidth = Double(bounds.width)
        snapshot.screenResolutionHeight = Double(bounds.height)
        #endif
        return snapshot
    }
}
#elseif canImport(AppKit) && os(macOS)
import AppKit

extension AccessibilitySnapshot {
    @MainActor
    static func appKit() -> AccessibilitySnapshot {
        let application = NSApplication.shared
        let isDark = application.effectiveAppearance.bestMatch(from: [.darkAqua, .aqua]) == .darkAqua
        var snapshot = AccessibilitySnapshot(
            isReduceMotionEnabled: NSWorkspace.shared.accessibilityDisplayShouldReduceMotion,
            colorScheme: isDark ? "Dark" : "Light",
            layoutDirection: application.userInterfaceLayoutDirection == .rightToLeft ? "rightToLeft" : "leftToRight"
        )
        if let frame = NSScreen.main?.frame {
            snapshot.screenResolutionWidth = Double(frame.width)
            snapshot.screenResolutionHeight = Double(frame.height)
        }
        return snapshot
    }
}
#endif
