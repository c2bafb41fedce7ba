/// Just enough of Swift's lexical structure to tell code from comments.
enum SwiftCode {
    private static let (lineComment, openComment, closeComment) = (Array("//".utf8), Array("/*".utf8), Array("*/".utf8))
    private static let (quote, tripleQuote, backslash) = (Array("\"".utf8), Array("\"\"\"".utf8), Array("\\".utf8))
    private static let newline = UInt8(ascii: "\n")
    private static let specials: Set<UInt8> = [
        UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "\""), UInt8(ascii: "\\"), newline,
    ]

    /// `source` with every comment replaced by spaces (line breaks kept, so line numbers hold):
    /// a doc comment that names `UserDefaults` does not use it. `//` inside a string literal is
    /// not a comment; block comments nest, as Swift's do.
    static func withoutComments(_ source: String) -> String {
        var bytes = Array(source.utf8)
        var index = 0
        var blockDepth = 0
        var inString = false
        var inMultilineString = false
        func at(_ expected: [UInt8]) -> Bool {
            guard index + expected.count <= bytes.count else { return false }
            return expected.indices.allSatisfy { bytes[index + $0] == expected[$0] }
        }
        func blank(_ count: Int) {
            for position in index..<min(index + count, bytes.count) where bytes[position] != newline {
                bytes[position] = UInt8(ascii: " ")
            }
            index += count
        }
        while index < bytes.count {
            // Most bytes are none of / * " \ and leave every state as it is.
            if !specials.contains(bytes[index]) {
                if blockDepth > 0 { blank(1) } else { index += 1 }
                continue
            }
            if blockDepth > 0 {
                if at(openComment) {
                    blockDepth += 1
                    blank(2)
                } else if at(closeComment) {
                    blockDepth -= 1
                    blank(2)
                } else {
                    blank(1)
                }
            } else if inString || inMultilineString {
                if at(backslash) {
                    index += 2
                } else if inMultilineString, at(tripleQuote) {
                    inMultilineString = false
                    index += 3
                } else if inString, at(quote) || at([newline]) {
                    inString = false
                    index += 1
                } else {
                    index += 1
                }
            } else if at(lineComment) {
                while index < bytes.count, bytes[index] != newline { blank(1) }
            } else if at(openComment) {
                blockDepth = 1
                blank(2)
            } else if at(tripleQuote) {
                inMultilineString = true
                index += 3
            } else if at(quote) {
                inString = true
                index += 1
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The identifiers in a line of code, each with whether a `(` follows it (a call).
    static func identifiers(in line: Substring) -> [(name: String, isCalled: Bool)] {
        let characters = Array(line.utf8)
        func isHead(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
        }
        func isBody(_ byte: UInt8) -> Bool { isHead(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) }
        var words: [(name: String, isCalled: Bool)] = []
        var index = 0
        while index < characters.count {
            guard isHead(characters[index]), index == 0 || !isBody(characters[index - 1]) else {
                index += 1
                continue
            }
            let start = index
            while index < characters.count, isBody(characters[index]) { index += 1 }
            var next = index
            while next < characters.count, characters[next] == UInt8(ascii: " ") { next += 1 }
            let isCalled = next < characters.count && characters[next] == UInt8(ascii: "(")
            words.append((String(decoding: characters[start..<index], as: UTF8.self), isCalled))
        }
        return words
    }
}
