#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call's error as the caches put it in their messages, e.g.
/// `"No space left on device (errno 28)"`: the text for a reader, the number for a search.
///
/// - Parameter code: the `errno` value; by default the current one (read it before any other
///   call can change it).
package func systemErrorDescription(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
