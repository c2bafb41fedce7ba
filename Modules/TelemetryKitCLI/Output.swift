#if Tools
import Foundation

/// Writes `text` and a line break to standard output at once (unbuffered), so output
/// shows up in order and immediately, also through a pipe.
func say(_ text: String = "") {
    write(text + "\n")
}

/// Writes `text` to standard output at once (unbuffered).
func write(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
#endif
