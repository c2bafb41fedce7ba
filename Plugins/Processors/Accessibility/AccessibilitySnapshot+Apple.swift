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
            ),
            isInvertColorsEnabled: UIAccessibility.isInvertColorsEnabled,
            isDarkerSystemColorsEnabled: UIAccessibility.isDarkerSystemColorsEnabled,
            isReduceTransparencyEnabled: UIAccessibility.isReduceTransparencyEnabled,
            shouldDifferentiateWithoutColor: UIAccessibility.shouldDifferentiateWithoutColor
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
        snapshot.screenScaleFactor = Double(UIScreen.main.scale)
        #endif
        #if os(iOS)
        let device = UIDevice.current.orientation
        snapshot.orientation = orientationName(
            isPortrait: device == .portrait,
            isUpsideDown: device == .portraitUpsideDown,
            isLandscapeLeft: device == .landscapeLeft,
            isLandscapeRight: device == .landscapeRight
        )
        #endif
        return snapshot
    }
}
#elseif canImport(AppKit) && os(macOS)
import AppKit

extension AccessibilitySnapshot {
    @MainActor
    static func appKit() -> AccessibilitySnapshot {
        let application = sharedApplication
        let isDark = application.map { $0.effectiveAppearance.bestMatch(from: [.darkAqua, .aqua]) == .darkAqua }
        let workspace = NSWorkspace.shared
        var snapshot = AccessibilitySnapshot(
            isReduceMotionEnabled: workspace.accessibilityDisplayShouldReduceMotion,
            colorScheme: isDark.map { $0 ? "Dark" : "Light" },
            layoutDirection: application.map {
                $0.userInterfaceLayoutDirection == .rightToLeft ? "rightToLeft" : "leftToRight"
            },
            isInvertColorsEnabled: workspace.accessibilityDisplayShouldInvertColors,
            isDarkerSystemColorsEnabled: workspace.accessibilityDisplayShouldIncreaseContrast,
            isReduceTransparencyEnabled: workspace.accessibilityDisplayShouldReduceTransparency,
            shouldDifferentiateWithoutColor: workspace.accessibilityDisplayShouldDifferentiateWithoutColor
        )
        if let screen = NSScreen.main {
            snapshot.screenResolutionWidth = Double(screen.frame.width)
            snapshot.screenResolutionHeight = Double(screen.frame.height)
            snapshot.screenScaleFactor = Double(screen.backingScaleFactor)
        }
        return snapshot
    }

    /// `NSApplication.shared` through the Objective-C runtime (as `UIKitBackgroundTasks` reaches
    /// UIKit's), so that no code an app extension links names the shared application, which
    /// extensions may not use; nil where there is none (colour scheme and layout direction are
    /// then left out).
    @MainActor private static var sharedApplication: NSApplication? {
        let selector = NSSelectorFromString("sharedApplication")
        guard NSApplication.responds(to: selector) else { return nil }
        return NSApplication.perform(selector)?.takeUnretainedValue() as? NSApplication
    }
}
#endif
