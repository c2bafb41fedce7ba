import TelemetryKit
import TelemetryKitInMemoryStorage
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct InMemoryProcessorStorageTests {
    @Test(arguments: ProcessorStorageConformance.Check.allCases)
    func conformance(_ check: ProcessorStorageConformance.Check) async throws {
        // A "reopen" of an in-memory storage is the same instance, as when two clients share it.
        let instances = Locked([String: InMemoryProcessorStorage]())
        try await ProcessorStorageConformance.run(check) { name in
            instances.withLock { instances in
                if let existing = instances[name] { return existing }
                let storage = InMemoryProcessorStorage()
                instances[name] = storage
                return storage
            }
        }
    }

    @Test func instancesDoNotShareValues() async {
        let first = InMemoryProcessorStorage()
        let second = InMemoryProcessorStorage()
        await first.set("first", forKey: "key")
        #expect(await second.string(forKey: "key") == nil)
        #expect(await first.string(forKey: "key") == "first")
    }

    @Test func keysListsWhatIsStored() async {
        let storage = InMemoryProcessorStorage()
        await storage.set("a", forKey: "one")
        await storage.set(2, forKey: "two")
        await storage.set(true, forKey: "three")
        await storage.removeValue(forKey: "three")
        #expect(storage.keys.sorted() == ["one", "two"])
    }

    @Test func flushKeepsValues() async {
        let storage = InMemoryProcessorStorage()
        await storage.set(42, forKey: "answer")
        await storage.flush()
        #expect(await storage.integer(forKey: "answer") == 42)
    }
}
