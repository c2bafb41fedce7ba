#if Tools
import TelemetryKit

/// Writes `text` and a line break to standard output at once (unbuffered), so output
/// shows up in order and immediately, also through a pipe.
func say(_ text: String = "") {
    write(text + "\n")
}

/// Writes `text` to standard output with `write(2)`. A closed pipe (`telemetrykit demo |
/// head`) ends the output quietly instead of crashing.
func write(_ text: String) {
    DescriptorOutput.write(text, to: DescriptorOutput.standardOutput)
}
#endif
