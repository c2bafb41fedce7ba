// `import TelemetryKitDefaults` is all an app writes: the core and the default plugins come with it.
@_exported public import TelemetryKit
@_exported public import TelemetryKitInMemoryStorage
