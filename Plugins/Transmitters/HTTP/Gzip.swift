import CZlib

/// gzip compression (RFC 1952) with the system zlib.
public enum Gzip {
    /// Compresses `bytes` into a complete gzip member.
    ///
    /// - Parameter level: zlib level, 0 (store) … 9 (smallest); default 6, zlib's own default.
    /// - Throws: ``GzipError`` when zlib reports a failure (out of memory).
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) throws(GzipError) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper instead of zlib's.
        let initStatus = deflateInit2_(
            &stream,
            min(max(level, 0), 9),
            Z_DEFLATED,
            15 + 16,
            8,
            Z_DEFAULT_STRATEGY,
            zlibVersion(),
            Int32(MemoryLayout<z_stream>.size)
        )
        guard initStatus == Z_OK else { throw GzipError(status: initStatus) }
        defer { deflateEnd(&stream) }

        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw GzipError(status: status) }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}

/// A zlib failure while compressing.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// zlib's status code.
    public var status: Int32

    public init(status: Int32) {
        self.status = status
    }

    public var description: String { "gzip compression failed (zlib status \(status))" }
}
