import TelemetryKitSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Fast time-ordered (version 7, RFC 9562) UUIDs for event ids.
///
/// `UUID()` asks the kernel for 16 random bytes on every call (a system call on Linux,
/// several microseconds under load). Event ids only need to be unique, so random bytes are
/// drawn from the system generator in blocks of 4 KiB (one system call) and handed out 16 at
/// a time.
///
/// Why time-ordered, not random (version 4): a durable cache indexes its events by id (for
/// `remove(ids:)`). Random ids land on random pages of that index, so a commit of 500 events
/// rewrote most of the index's pages and the SQLite cache spent more on them than on the
/// events. Ids that start with the event's millisecond
/// (48 bits) are appended at the index's end, one page per commit. The other 74 bits stay
/// random, so ids are as unique as before; they reveal only the event's `receivedAt`, which
/// the event carries anyway.
enum EventID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var offset = 4096
    }

    private static let pool = Locked(Pool())

    /// An id for an event received at `date`: its milliseconds since 1970 (clamped to the
    /// 48 bits there are), then the version, the variant and random bits.
    static func make(at date: Date) -> UUID {
        let seconds = date.timeIntervalSince1970
        let milliseconds: UInt64 =
            seconds.isFinite && seconds > 0 ? UInt64(min((seconds * 1000).rounded(), Double(0xFFFF_FFFF_FFFF))) : 0
        let uuid = pool.withLock { pool -> uuid_t in
            if pool.offset + 10 > pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { EventID.fillRandom($0) }
                pool.offset = 0
            }
            let o = pool.offset
            pool.offset += 10
            let b = pool.bytes
            // Byte by byte, not through a helper closure: a closure that captures
            // `milliseconds` inside this one costs an allocation per id.
            let m = milliseconds
            return (
                UInt8(truncatingIfNeeded: m >> 40), UInt8(truncatingIfNeeded: m >> 32),
                UInt8(truncatingIfNeeded: m >> 24), UInt8(truncatingIfNeeded: m >> 16),
                UInt8(truncatingIfNeeded: m >> 8), UInt8(truncatingIfNeeded: m), (b[o] & 0x0f) | 0x70, b[o + 1],
                (b[o + 2] & 0x3f) | 0x80, b[o + 3], b[o + 4], b[o + 5], b[o + 6], b[o + 7], b[o + 8], b[o + 9]
            )
        }
        return UUID(uuid: uuid)
    }

    #if os(Linux)
    /// `/dev/urandom`, opened once (the Glibc module does not export `getrandom`).
    private static let urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    #endif

    /// Fills `buffer` from the system's cryptographic generator, in one call where possible.
    private static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Darwin)
        arc4random_buf(buffer.baseAddress, buffer.count)
        #elseif os(Linux)
        guard let base = buffer.baseAddress else { return }
        var filled = 0
        if urandom >= 0 {
            while filled < buffer.count {
                let result = read(urandom, base + filled, buffer.count - filled)
                if result > 0 {
                    filled += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        if filled < buffer.count {
            // /dev/urandom unavailable (sandbox): the standard library's generator never fails.
            var generator = SystemRandomNumberGenerator()
            for index in filled..<buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: generator.next())
            }
        }
        #else
        var generator = SystemRandomNumberGenerator()
        for index in buffer.indices {
            buffer[index] = UInt8(truncatingIfNeeded: generator.next())
        }
        #endif
    }
}
