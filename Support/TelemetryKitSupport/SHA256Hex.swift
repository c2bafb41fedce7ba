#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif

/// Lowercase hex SHA-256 digests.
package enum SHA256Hex {
    /// The lowercase hex SHA-256 digest of the UTF-8 bytes of `string`.
    package static func digest(_ string: String) -> String {
        let digest = SHA256.hash(data: Array(string.utf8))
        let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
