#if !Tools
/// The entry point when the package is built without the Tools trait.
@main
enum ToolsTraitMissing {
    static func main() {
        print("telemetrykit needs the Tools trait: swift run --traits Tools telemetrykit demo")
    }
}
#endif
