import Foundation
import TelemetryKit
import TelemetryKitDevice
import TelemetryKitTesting
import Testing

struct DeviceClientTests {
    @Test func everyEventThroughTheClientCarriesTheDeviceFacts() async throws {
        let info = DeviceInfo.linux(
            fileSystemRoot: "/nonexistent-\(UUID().uuidString)",
            kernel: KernelIdentity(release: "5.15.0-91-generic", machine: "riscv64"),
            isDebug: false
        )
        let processor = DeviceProcessor(timeZone: try #require(TimeZone(identifier: "Asia/Kathmandu")), info: info)
        let harness = await TestHarness.make(processors: [processor])
        await harness.client.send(EventInput("a"))
        await harness.client.send(EventInput("b", timestamp: Date(timeIntervalSince1970: 0)))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.count == 2)
        for event in events {
            #expect(event.payload[DeviceProcessor.Keys.systemVersion] == .string("Linux 5.15.0"))
            #expect(event.payload[DeviceProcessor.Keys.systemMajorMinorVersion] == .string("Linux 5.15"))
            #expect(event.payload[DeviceProcessor.Keys.modelName] == .string("riscv64"))
            #expect(event.payload[DeviceProcessor.Keys.isDebug] == .bool(false))
        }
        // Kathmandu was UTC+5:30 until 1986, UTC+5:45 since.
        #expect(events.map { $0.payload[DeviceProcessor.Keys.timeZone] } == [.string("UTC+5:45"), .string("UTC+5:30")])
        await harness.client.shutdown()
    }
}
