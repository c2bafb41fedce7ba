extension TelemetryClient {
    /// Makes the client save its state and deliver what is queued whenever the app goes to
    /// the background or is about to terminate (called once, at the end of `start()`).
    ///
    /// An app in the background may be suspended or killed at any moment without another
    /// word, so this is the last reliable chance to write the processors' state (session
    /// length, running durations) and to send the queue. On `.didEnterBackground` and
    /// `.willTerminate` of ``lifecycle`` the client, in this order:
    /// 1. waits for the processors that adopt `IdleAwaitable` (they persist on the same
    ///    signal; their observers ran before this one because they were registered first);
    /// 2. waits until the running durations are written;
    /// 3. flushes the ``storage`` (a debounced backend writes now);
    /// 4. attempts a ``flush()`` of every destination: what cannot be sent stays in the
    ///    durable cache for the next launch.
    ///
    /// All of it runs inside a background task of ``backgroundTasks`` when the client has
    /// them: when the granted time runs out first, the flush is cancelled (the
    /// events stay queued) and the background task ends.
    ///
    /// Nothing happens before `start()` or after `shutdown()` (which flushes by itself).
    func reactToLifecycle() {
        lifecycle.observe { [weak self] signal in
            guard let self, self.isRunning else { return }
            switch signal {
            case .didEnterBackground, .willTerminate:
                Self.runInBackgroundTask(of: self.backgroundTasks, named: "TelemetryKit: save and send") {
                    await self.persistAndFlush()
                }
            case .willEnterForeground, .newSessionRequested:
                break
            }
        }
    }

    /// Writes the processors' and the client's state, then attempts to deliver the queue.
    private func persistAndFlush() async {
        for processor in processors {
            if let settling = processor as? any IdleAwaitable {
                await settling.waitUntilIdle()
            }
        }
        await durations.waitUntilPersisted()
        await storage.flush()
        guard isRunning else { return }  // shut down meanwhile: `shutdown()` delivered already
        if case .incomplete(let remaining) = await flush() {
            logger.log(.info, "\(remaining) event(s) stay queued while the app is in the background")
        }
    }
}
