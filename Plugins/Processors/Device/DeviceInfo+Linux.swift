import Foundation
import TelemetryKitSupport

extension DeviceInfo {
    /// Reads the facts of a Linux system from its files and `uname`.
    ///
    /// - Version: `VERSION_ID` of `etc/os-release` (else `usr/lib/os-release`) when it starts
    ///   with a digit and uses only the characters os-release(5) allows; otherwise the kernel
    ///   release. Of that string the longest prefix of the form `N(.N)*` is the version, its
    ///   components kept as written:
    ///
    ///   | source | systemVersion | systemMajorVersion | systemMajorMinorVersion |
    ///   |---|---|---|---|
    ///   | `VERSION_ID="12"` | `Linux 12` | `Linux 12` | `Linux 12.0` |
    ///   | `VERSION_ID="22.04"` | `Linux 22.04` | `Linux 22` | `Linux 22.04` |
    ///   | `VERSION_ID="3.19.1"` | `Linux 3.19.1` | `Linux 3` | `Linux 3.19` |
    ///   | kernel `6.1.0-18-amd64` | `Linux 6.1.0` | `Linux 6` | `Linux 6.1` |
    ///   | neither | `Linux unknown` | `Linux unknown` | `Linux unknown` |
    /// - Model: `sys/class/dmi/id/product_name`, trimmed, when it is printable text of at most
    ///   128 characters and not a firmware placeholder such as `To be filled by O.E.M.`;
    ///   otherwise the machine name (`uname -m`). Containers and many ARM boards have no DMI.
    /// - Architecture: the machine name (`uname -m`), `unknown` if empty.
    /// - Run context: not a simulator, not TestFlight, not the App Store, target environment
    ///   `native`.
    ///
    /// Missing, unreadable or garbage files fall back as above; nothing here throws.
    ///
    /// - Parameters:
    ///   - fileSystemRoot: The directory that stands for `/` (tests point it at a temporary
    ///     directory with fake `etc/os-release` and `sys/class/dmi/id/product_name` files).
    ///   - kernel: The `uname` facts.
    ///   - isDebug: The value of `TelemetryDeck.RunContext.isDebug`.
    public static func linux(
        fileSystemRoot: String = "/",
        kernel: KernelIdentity = .current(),
        isDebug: Bool = DeviceInfo.isDebugBuild
    ) -> DeviceInfo {
        let osRelease =
            LinuxSystemFiles.read(LinuxSystemFiles.osRelease, root: fileSystemRoot)
            ?? LinuxSystemFiles.read(LinuxSystemFiles.osReleaseFallback, root: fileSystemRoot)
        let versionID = osRelease.flatMap { LinuxSystemFiles.parseOSRelease($0)["VERSION_ID"] }
        var components: [Substring] = []
        if let versionID, LinuxSystemFiles.isPlausibleVersionID(versionID) {
            components = LinuxSystemFiles.numericComponents(of: versionID)
        }
        if components.isEmpty {
            components = LinuxSystemFiles.numericComponents(of: kernel.release)
        }

        let system = "Linux"
        let version: String
        let major: String
        let majorMinor: String
        if let first = components.first {
            version = "\(system) \(components.joined(separator: "."))"
            major = "\(system) \(first)"
            majorMinor = "\(system) \(first).\(components.count > 1 ? components[1] : "0")"
        } else {
            version = "\(system) unknown"
            major = version
            majorMinor = version
        }

        let machine = kernel.machine.trimmingWhitespace
        let architecture = machine.isEmpty ? "unknown" : machine
        let productName = LinuxSystemFiles.read(LinuxSystemFiles.productName, root: fileSystemRoot)
            .flatMap(LinuxSystemFiles.plausibleProductName)

        return DeviceInfo(
            platform: system,
            operatingSystem: system,
            systemVersion: version,
            systemMajorVersion: major,
            systemMajorMinorVersion: majorMinor,
            modelName: productName ?? architecture,
            architecture: architecture,
            isSimulator: false,
            isDebug: isDebug,
            isTestFlight: false,
            isAppStore: false,
            targetEnvironment: "native"
        )
    }
}

/// Reading and validating the Linux files that describe the system.
enum LinuxSystemFiles {
    static let osRelease = "etc/os-release"
    static let osReleaseFallback = "usr/lib/os-release"
    static let productName = "sys/class/dmi/id/product_name"

    /// These files are tiny; the cap keeps a misplaced device file or symlink from being
    /// read without end.
    static let maximumFileSize = 64 * 1024

    /// Values that firmware vendors leave in DMI instead of a model name.
    static let placeholderProductNames: Set<String> = [
        "to be filled by o.e.m.", "to be filled by oem", "default string", "system product name",
        "system name", "product name", "not specified", "not applicable", "n/a", "na", "none", "null",
        "unknown", "oem", "o.e.m.", "invalid", "empty", "0", "123456789", "type1productconfigid", "x.x",
    ]

    /// The UTF-8 text of `relativePath` below `root`, or nil when missing, unreadable,
    /// empty, binary or not UTF-8.
    static func read(_ relativePath: String, root: String) -> String? {
        let path = root.hasSuffix("/") ? root + relativePath : root + "/" + relativePath
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumFileSize), !data.isEmpty,
            !data.contains(0),
            let text = String(bytes: data, encoding: .utf8)
        else { return nil }
        return text
    }

    /// Parses os-release(5) `KEY=value` lines; values may be single- or double-quoted, and
    /// double-quoted values may escape `"`, `\`, `$` and `` ` `` with a backslash.
    static func parseOSRelease(_ text: String) -> [String: String] {
        var result = [String: String]()
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace
            guard !line.isEmpty, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingWhitespace
            guard !key.isEmpty else { continue }
            result[key] = unquote(line[line.index(after: equals)...])
        }
        return result
    }

    private static func unquote(_ raw: Substring) -> String {
        guard raw.count >= 2, let quote = raw.first, quote == "\"" || quote == "'", raw.last == quote else {
            return String(raw)
        }
        let inner = raw.dropFirst().dropLast()
        guard quote == "\"" else { return String(inner) }
        var value = ""
        var escaping = false
        for character in inner {
            if escaping {
                if !"\"\\$`".contains(character) { value.append("\\") }
                value.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                value.append(character)
            }
        }
        if escaping { value.append("\\") }
        return value
    }

    /// `VERSION_ID` is "a lower-case string (mostly numeric) … containing only 0–9, a–z, '.',
    /// '_' and '-'" (os-release(5)); anything else is treated as garbage. A version without a
    /// leading digit (e.g. `rolling`) says nothing numeric, so the kernel release is used.
    static func isPlausibleVersionID(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, ("0"..."9").contains(first), value.utf8.count <= 64 else {
            return false
        }
        return value.unicodeScalars.allSatisfy { scalar in
            ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-" || scalar == "~"
        }
    }

    /// The components of the longest `N(.N)*` prefix: `6.1.0-18-amd64` → `6`, `1`, `0`.
    static func numericComponents(of value: String) -> [Substring] {
        var components: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character.isASCII, character.isNumber {
                index = value.index(after: index)
            } else if character == ".", index > start {
                components.append(value[start..<index])
                index = value.index(after: index)
                start = index
            } else {
                break
            }
        }
        if index > start { components.append(value[start..<index]) }
        return components
    }

    /// The trimmed product name, or nil when it is empty, too long, not printable or a
    /// firmware placeholder.
    static func plausibleProductName(_ text: String) -> String? {
        let name = text.trimmingWhitespace
        guard !name.isEmpty, name.count <= 128,
            name.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }),
            !placeholderProductNames.contains(name.lowercased())
        else { return nil }
        return name
    }
}
