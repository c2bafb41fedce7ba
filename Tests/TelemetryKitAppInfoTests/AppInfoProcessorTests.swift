import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitAppInfo

struct AppInfoProcessorTests {
    private typealias Keys = AppInfoProcessor.Keys

    private func payload(of processor: AppInfoProcessor) async throws -> [String: PayloadValue] {
        try await ProcessorPipeline(processors: [processor], finalizer: .test)
            .process(EventInput("Screen.shown")).payload
    }

    @Test func sendsTheVersionStringsOfTheAppAndTheSDK() async throws {
        let processor = AppInfoProcessor(
            bundleVersion: nil,
            bundleBuildNumber: nil,
            appVersion: "2.1.0",
            buildNumber: "42"
        )

        let payload = try await payload(of: processor)

        #expect(
            payload == [
                "TelemetryDeck.AppInfo.version": .string("2.1.0"),
                "TelemetryDeck.AppInfo.buildNumber": .string("42"),
                "TelemetryDeck.AppInfo.versionAndBuildNumber": .string("2.1.0 (build 42)"),
                "TelemetryDeck.SDK.name": .string("TelemetryKit"),
                "TelemetryDeck.SDK.version": .string(SDKInfo.version),
                "TelemetryDeck.SDK.nameAndVersion": .string("TelemetryKit \(SDKInfo.version)"),
            ]
        )
    }

    @Test func withoutAnySourceVersionAndBuildAreZero() async throws {
        let processor = AppInfoProcessor(bundleVersion: nil, bundleBuildNumber: nil, appVersion: nil, buildNumber: "")

        let payload = try await payload(of: processor)

        #expect(payload[Keys.version] == .string("0"))
        #expect(payload[Keys.buildNumber] == .string("0"))
        #expect(payload[Keys.versionAndBuildNumber] == .string("0 (build 0)"))
    }

    @Test func theBundleWinsOverTheConfigurationFieldByField() async throws {
        let processor = AppInfoProcessor(
            bundleVersion: "3.0",
            bundleBuildNumber: nil,
            appVersion: "2.1.0",
            buildNumber: "42"
        )

        let payload = try await payload(of: processor)

        #expect(processor.appVersion == "3.0")
        #expect(processor.buildNumber == "42")
        #expect(payload[Keys.versionAndBuildNumber] == .string("3.0 (build 42)"))
    }

    @Test func anEventParameterOfTheSameKeyWins() async throws {
        let processor = AppInfoProcessor(
            bundleVersion: nil,
            bundleBuildNumber: nil,
            appVersion: "2.1.0",
            buildNumber: "42"
        )
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: .test)

        let event = try await pipeline.process(EventInput("Screen.shown", parameters: [Keys.version: "9.9"]))

        #expect(event.payload[Keys.version] == .string("9.9"))
        #expect(event.payload[Keys.buildNumber] == .string("42"))
    }

    #if !canImport(Darwin)
    @Test func withoutABundleThePublicInitializerUsesTheConfiguration() async throws {
        let configured = AppInfoProcessor(appVersion: "1.4.2", buildNumber: "7")
        let unconfigured = AppInfoProcessor()

        #expect(try await payload(of: configured)[Keys.versionAndBuildNumber] == .string("1.4.2 (build 7)"))
        #expect(try await payload(of: unconfigured)[Keys.versionAndBuildNumber] == .string("0 (build 0)"))
    }
    #endif
}
