/// A required-reason API named in a line of code.
struct RequiredReasonUse: Hashable, Sendable, CustomStringConvertible {
    /// The source file, relative to the package root.
    var file: String
    var line: Int
    var category: String
    /// The function or symbol found.
    var name: String

    var description: String { "\(file):\(line) uses `\(name)` (\(category))" }

    /// The required-reason APIs that `source`'s code (not its comments) names, with their lines.
    static func uses(in source: String, file: String) -> [RequiredReasonUse] {
        var uses: [RequiredReasonUse] = []
        for (index, line) in SwiftCode.withoutComments(source).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            for word in SwiftCode.identifiers(in: Substring(line)) {
                for api in RequiredReasonAPI.all
                where api.symbols.contains(word.name) || (api.functions.contains(word.name) && word.isCalled) {
                    uses.append(.init(file: file, line: index + 1, category: api.category, name: word.name))
                }
            }
        }
        return uses
    }
}
