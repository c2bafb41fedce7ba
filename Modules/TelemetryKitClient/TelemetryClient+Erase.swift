import TelemetryKitSupport

extension TelemetryClient {
    /// Erases what the SDK keeps about the user: every destination's queue and the events
    /// held in memory, the processors' storage (user ids, session history, first-session
    /// date, consent), running durations and the navigation history. Returns when it is done
    /// and on disk.
    ///
    /// Why: a user who asks an app to delete their data expects the analytics SDK's copy to go
    /// too, and App Store review asks for account deletion to delete data.
    ///
    /// Events sent before the call are erased with the rest; events sent after it go on as
    /// from a fresh install (a new install id, a new session). A batch on its way when the
    /// call comes is not sent again, and nothing it answers is kept. The opt-out switch
    /// (``setAnalyticsDisabled(_:)``) stays as it is: erasing is not consent.
    ///
    /// The processors are stopped and started again around the erasure, so each begins afresh
    /// from the empty storage, and no event is processed meanwhile.
    ///
    /// ```swift
    /// try await client.removeAllData()
    /// ```
    ///
    /// - Throws: the first error of a queue or of the storage that could not be erased (a
    ///   third-party `ProcessorStorage` without `removeAll()`); the rest is erased all the same.
    public func removeAllData() async throws {
        let failure = Locked<(any Error)?>(nil)
        await features.settings.run { [self] in
            let work: @Sendable () async -> Void = { [self] in
                if let error = await eraseEverything() { failure.withLock { $0 = $0 ?? error } }
            }
            // Between the events sent before and those sent after; run here when nothing is
            // being processed (before start, after shutdown).
            if await !intake.barrier(then: work) { await work() }
        }
        if let error = failure.current { throw error }
    }

    /// Gives later events a new identity, as after a user logs out: the user identifier set on
    /// the client and on the user-id processor is cleared, an install-scoped id is replaced by
    /// a new one, and a new session starts. Events sent before keep the identity they were
    /// sent with (they are processed first).
    ///
    /// ```swift
    /// await client.resetIdentity()
    /// ```
    public func resetIdentity() async {
        let processor = processor(conformingTo: (any UserIdentifierManaging).self)
        await intake.barrier { [self] in
            setUserIdentifier(nil)
            await processor?.resetIdentity()
            await storage.flush()
        }
        newSession()
        for case let settling as any IdleAwaitable in processors {
            await settling.waitUntilIdle()
        }
        await waitUntilProcessed()
    }

    /// The erasure itself (see ``removeAllData()``); returns the first error.
    private func eraseEverything() async -> (any Error)? {
        let running = isRunning
        if running {
            for processor in processors.reversed() {
                await processor.stop()
            }
        }
        var firstError: (any Error)?
        for dispatcher in dispatchers {
            if let error = await dispatcher.erase() { firstError = firstError ?? error }
        }
        await durations.removeAll()
        features.navigation.forget()
        setUserIdentifier(nil)
        do {
            try await storage.removeAll()
        } catch {
            logger.log(.error, "removeAllData: the processor storage could not be erased: \(error)")
            firstError = firstError ?? error
        }
        if isAnalyticsDisabled {
            await storage.set(true, forKey: TelemetryStorageKeys.analyticsDisabled)
        }
        if running {
            let emitter = emitter
            for processor in processors {
                await processor.start(storage: storage, logger: logger, emitter: emitter)
            }
        }
        await storage.flush()
        return firstError
    }
}
