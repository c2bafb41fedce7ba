#if Tools
import CZlib

/// Decompresses gzip (or zlib) request bodies with the system zlib.
enum Inflate {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The inflated bytes of a gzip or zlib stream, at most `limit` bytes.
    static func decompress(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 32: detect the gzip or zlib header automatically.
        let initStatus = inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw Failure(description: "zlib could not start (status \(initStatus))") }
        defer { inflateEnd(&stream) }

        var output = [UInt8]()
        output.reserveCapacity(min(limit, max(4096, input.count * 8)))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        try input.withUnsafeBufferPointer { inputBuffer in
            stream.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw Failure(description: "the body is not valid gzip (zlib status \(status))")
                }
                guard output.count + produced <= limit else {
                    throw Failure(description: "the inflated body exceeds \(limit) bytes")
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_OK && produced == 0 && stream.avail_in == 0 {
                    throw Failure(description: "the gzip body is truncated")
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
#endif
