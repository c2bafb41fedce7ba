#if Tools
/// A failure the user can act on, said in a sentence: the argument parser prints it after
/// `Error: ` without the usage text (the arguments were fine) and exits 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
#endif
