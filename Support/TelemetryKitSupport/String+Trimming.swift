extension StringProtocol {
    /// The string without leading and trailing whitespace and line breaks.
    package var trimmingWhitespace: String {
        var substring = self[...]
        while let first = substring.first, first.isWhitespace { substring.removeFirst() }
        while let last = substring.last, last.isWhitespace { substring.removeLast() }
        return String(substring)
    }
}
