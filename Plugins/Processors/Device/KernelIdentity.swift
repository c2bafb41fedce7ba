#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `uname(2)` says about the running kernel: its release and the machine hardware name.
public struct KernelIdentity: Sendable, Hashable {
    /// The kernel release, e.g. `6.1.0-18-amd64` (`uname -r`).
    public var release: String
    /// The machine hardware name, e.g. `x86_64`, `aarch64` (`uname -m`).
    public var machine: String

    /// Creates an identity from explicit values.
    public init(release: String, machine: String) {
        self.release = release
        self.machine = machine
    }

    /// The running kernel, read with `uname(2)`; empty strings where the call is unavailable.
    public static func current() -> KernelIdentity {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        var name = utsname()
        guard uname(&name) == 0 else { return KernelIdentity(release: "", machine: "") }
        return KernelIdentity(release: decode(name.release), machine: decode(name.machine))
        #else
        return KernelIdentity(release: "", machine: "")
        #endif
    }

    /// Decodes one fixed-size, NUL-terminated `utsname` field without reading past its end.
    private static func decode<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
