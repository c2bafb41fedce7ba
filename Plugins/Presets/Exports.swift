// `import TelemetryKitPresets` brings the parameter keys its events and the processors write.
@_exported public import TelemetryKitConventions
