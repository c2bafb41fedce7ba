import Foundation
import TelemetryKitTesting

/// Runs `attempt` over and over while another thread starts 60 short child processes
/// (`/bin/true`) one after another, until they have all run; returns how many attempts
/// succeeded (`attempt` returned true) and how many failed.
///
/// A child process holds a copy of every descriptor of this process from the moment it is
/// created until it runs its program; a lock that is released only by closing its descriptor
/// stays held by such a copy. The callers check that released locks are free at once anyway.
func repeatWhileStartingChildProcesses(
    _ attempt: @escaping @Sendable () throws -> Bool
) async throws -> (succeeded: Int, failed: Int) {
    try await onThreadOfItsOwn {
        let starting = DispatchGroup()
        DispatchQueue.global().async(group: starting) {
            for _ in 0..<60 {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/bin/true")
                guard (try? child.run()) != nil else { return }
                child.waitUntilExit()
            }
        }
        var (succeeded, failed) = (0, 0)
        while starting.wait(timeout: .now()) == .timedOut {
            if try attempt() { succeeded += 1 } else { failed += 1 }
        }
        return (succeeded, failed)
    }
}
