#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where to keep a damaged cache file for inspection: `<path>.corrupt`, or `<path>.corrupt.1`,
/// `<path>.corrupt.2`, … when earlier copies exist.
///
/// A cache that recovers from damage twice (a failing disk does that) must not overwrite the
/// first copy with the second: the first is usually the one that explains what happened.
/// A name counts as taken when anything exists under it, a dangling link included.
///
/// - Parameter path: the damaged file.
/// - Returns: the first of those names that is free.
package func corruptCopyPath(for path: String) -> String {
    let base = path + ".corrupt"
    var candidate = base
    var number = 0
    var status = stat()
    while lstat(candidate, &status) == 0 {
        number += 1
        candidate = "\(base).\(number)"
    }
    return candidate
}
