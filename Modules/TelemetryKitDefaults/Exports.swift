@_exported public import TelemetryKit
