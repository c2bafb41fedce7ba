#if Tools
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT) and SIGTERM as an ordinary way to stop a command that runs until
/// interrupted: the command finishes its work (e.g. prints its summary) instead of dying.
final class Interruption {
    private let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Takes over SIGINT and SIGTERM from now on.
    init() {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        self.signals = signals
        sources = [SIGINT, SIGTERM].map { number in
            // Ignored as signals so that the dispatch source, not the default action, gets them.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Returns after `seconds` (nil: never) or at the first stop signal, whichever is first.
    func wait(seconds: Double?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [signals] in
                for await _ in signals { return }
            }
            if let seconds {
                group.addTask { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
#endif
