import Foundation

/// Runs `body` over and over while another thread starts 60 short child processes
/// (`/bin/true`) one after another, and returns when they have all run.
///
/// A child process holds a copy of every descriptor of this process from the moment it is
/// created until it runs its program; a lock that is released only by closing its descriptor
/// stays held by such a copy. The callers check that released locks are free at once anyway.
func repeatWhileStartingChildProcesses(_ body: () throws -> Void) rethrows {
    let starting = DispatchGroup()
    DispatchQueue.global().async(group: starting) {
        for _ in 0..<60 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/true")
            guard (try? child.run()) != nil else { return }
            child.waitUntilExit()
        }
    }
    while starting.wait(timeout: .now()) == .timedOut {
        try body()
    }
}
