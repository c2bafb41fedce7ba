#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value protected by a mutex: the cheap way for the SDK's processors and caches to keep
/// mutable state without an actor hop per event. (`package`: not API. Code outside the
/// package uses `Mutex` from `Synchronization`; this one also builds for the Apple
/// platforms before `Mutex`.)
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// Keep critical sections short and never `await` inside one (the closure is synchronous).
package final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only read or written inside `withLock`, which holds `mutex` for the
    // whole access, so no two threads touch it at once. The mutex is heap-allocated once,
    // never moved, and destroyed in deinit when no other reference exists.
    private var value: Value
    private let mutex: UnsafeMutablePointer<PlatformMutex>

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<PlatformMutex>.allocate(capacity: 1)
        #if canImport(Darwin)
        mutex.initialize(to: os_unfair_lock())
        #else
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(mutex)
        #endif
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(mutex)
        defer { os_unfair_lock_unlock(mutex) }
        #else
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value {
        withLock { $0 }
    }
}

#if canImport(Darwin)
typealias PlatformMutex = os_unfair_lock
#else
typealias PlatformMutex = pthread_mutex_t
#endif

extension Locked where Value: Sendable {
    /// Replaces the value.
    package func set(_ newValue: Value) {
        withLock { $0 = newValue }
    }
}
