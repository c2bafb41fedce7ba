// `FileStorageError`, `FileStorageDiagnostics` and `StoredValue` are part of this module's API.
@_exported public import TelemetryKitFileStorageSupport
