import TelemetryKitSupport

extension Telemetry {
    /// Erases everything the SDK keeps about the user and returns when it is gone from memory
    /// and disk: every destination's queue, the user ids, the session history and
    /// first-session date, consent, running durations and the navigation history (see
    /// `TelemetryClient.removeAllData()`). Later events count as from a fresh install.
    ///
    /// Why: for an app's "delete my data" or account deletion. A batch on its way is not
    /// sent again. The opt-out choice stays (erasing is not consent), and TelemetryDeck's old
    /// data is not imported again.
    ///
    /// Before `initialize`, what was buffered is discarded and the next `initialize` erases
    /// the data on disk before it starts anything.
    ///
    /// ```swift
    /// func deleteAccount() async throws {
    ///     try await api.deleteAccount()
    ///     try await Telemetry.removeAllData()
    /// }
    /// ```
    ///
    /// - Throws: ``TelemetryError/Code/dataNotErased`` when a queue or the storage could not
    ///   be erased (a storage of the app's own without `removeAll()`); the rest is erased.
    public static func removeAllData() async throws(TelemetryError) {
        let client = state.withLock { state -> TelemetryClient? in
            if let client = state.client { return client }
            // The events, durations and navigation gathered so far go; the opt-out choice
            // stays (it is the user's choice, not their data).
            state.gathered = FacadeState.Gathered(analyticsChoice: state.gathered.analyticsChoice)
            state.erasesAtInitialize = true
            return nil
        }
        guard let client else { return }
        try await erase(client)
    }

    /// Gives later events a new identity, as after a user logs out: the user identifier is
    /// cleared, the install gets a new id (replacing even the vendor identifier), and a new
    /// session starts. Events sent before keep the identity they were sent with. Nothing
    /// happens before `initialize`.
    ///
    /// ```swift
    /// func logOut() async {
    ///     await Telemetry.resetIdentity()
    /// }
    /// ```
    public static func resetIdentity() async {
        await client?.resetIdentity()
    }

    /// Erases `client`'s data, and marks TelemetryDeck's data as imported so that the old
    /// identity and history do not come back at the next launch.
    static func erase(_ client: TelemetryClient) async throws(TelemetryError) {
        var failure: (any Error)?
        do {
            try await client.removeAllData()
        } catch {
            failure = error
        }
        await client.storage.set(true, forKey: TelemetryDeckImporter.Keys.stateImported)
        await client.storage.set(true, forKey: TelemetryDeckImporter.Keys.eventsImported)
        await client.storage.flush()
        if let failure {
            throw TelemetryError(.dataNotErased, "Telemetry.removeAllData could not erase everything: \(failure)")
        }
    }
}
