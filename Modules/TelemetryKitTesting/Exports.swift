// Tests that import the testing kit get the client it drives and the in-memory storage its
// harness runs on.
@_exported public import TelemetryKitClient
@_exported public import TelemetryKitInMemoryStorage
