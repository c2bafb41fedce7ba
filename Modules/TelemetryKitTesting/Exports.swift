// Tests that import the testing kit get the in-memory storage its harness runs on.
@_exported public import TelemetryKitInMemoryStorage
