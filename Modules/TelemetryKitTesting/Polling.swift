/// Polls `condition` every 5 ms until it holds or `seconds` have passed; returns whether it
/// held. For tests that wait for work another thread does on its own time (a cache's commit,
/// a file appearing or going away), without a fixed sleep that is too short under load:
///
/// ```swift
/// #expect(await conditionHolds { journalFiles().isEmpty })
/// ```
package func conditionHolds(within seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let attempts = max(1, Int(seconds * 200))
    for _ in 0..<attempts {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return await condition()
}
