// `import TelemetryKitDefaults` is all an app writes: the core, the runtime, typed events (with the
// `@TelemetryEvent` macro when the trait is on) and the default plugins come with it. The plugins
// are this target's dependencies in Package.swift (DefaultPluginListTests checks).
@_exported public import TelemetryKit
@_exported public import TelemetryKitAccessibility
@_exported public import TelemetryKitAppInfo
@_exported public import TelemetryKitCalendar
@_exported public import TelemetryKitClient
@_exported public import TelemetryKitDefaultParameters
@_exported public import TelemetryKitDefaultPrefix
@_exported public import TelemetryKitDevice
@_exported public import TelemetryKitHTTP
@_exported public import TelemetryKitInMemoryStorage
@_exported public import TelemetryKitLocale
@_exported public import TelemetryKitPlistStorage
@_exported public import TelemetryKitPresets
@_exported public import TelemetryKitPreviewFilter
@_exported public import TelemetryKitSQLiteCache
@_exported public import TelemetryKitSessionTracking
@_exported public import TelemetryKitTestMode
@_exported public import TelemetryKitTrialConversion
@_exported public import TelemetryKitTypedEvents
@_exported public import TelemetryKitUserIdentifier
@_exported public import TelemetryKitValidation
