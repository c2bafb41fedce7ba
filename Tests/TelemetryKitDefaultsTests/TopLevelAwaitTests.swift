import Testing

struct TopLevelAwaitTests {
    @Test func awaitedEventFromTopLevelCodeWaitsForTheCache() async throws {
        let (status, text) = try await ChildProcess.run("TopLevelAwaitCheck")
        #expect(status == 0)
        #expect(text.contains("counts-match=true"))
    }
}
