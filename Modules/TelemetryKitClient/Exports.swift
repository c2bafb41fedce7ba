// The runtime is used with the API it runs: `import TelemetryKitClient` brings the values and
// protocols of `TelemetryKit` along.
@_exported public import TelemetryKit
