#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fast random (version 4) UUIDs for event ids.
///
/// `UUID()` asks the kernel for 16 random bytes on every call (a system call on Linux,
/// several microseconds under load). Event ids only need to be unique, so random bytes are
/// drawn from the system generator in blocks of 4 KiB and handed out 16 at a time.
enum EventID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var offset = 4096
    }

    private static let pool = Locked(Pool())

    static func make() -> UUID {
        let uuid = pool.withLock { pool -> uuid_t in
            if pool.offset + 16 > pool.bytes.count {
                var generator = SystemRandomNumberGenerator()
                pool.bytes.withUnsafeMutableBytes { buffer in
                    let words = buffer.bindMemory(to: UInt64.self)
                    for index in words.indices {
                        words[index] = generator.next()
                    }
                }
                pool.offset = 0
            }
            let o = pool.offset
            pool.offset += 16
            let b = pool.bytes
            return (
                b[o], b[o + 1], b[o + 2], b[o + 3], b[o + 4], b[o + 5], (b[o + 6] & 0x0f) | 0x40, b[o + 7],
                (b[o + 8] & 0x3f) | 0x80, b[o + 9], b[o + 10], b[o + 11], b[o + 12], b[o + 13], b[o + 14], b[o + 15]
            )
        }
        return UUID(uuid: uuid)
    }
}
