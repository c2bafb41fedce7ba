public import TelemetryKitTransformations

/// Builds a `JavaScript` transformation: a script run against each event of its scope.
///
/// ```swift
/// var config = TransformationConfiguration()
/// config.registerJavaScript()
/// config.setTransformation(
///     JavaScriptSettingsBuilder(id: "total")
///         .setCode("payload.total = payload.price * payload.qty")
///         .setScope(.afterProcessors)
/// )
/// ```
///
/// JSON configuration: `{"js_code": "payload.total = payload.price * payload.qty"}`, optionally
/// with `"timeout_ms": 100` (default: the transformer's limit, 50 ms). See
/// ``JavaScriptContext`` for what the script sees.
public struct JavaScriptSettingsBuilder: TransformationSettingsBuilder {
    /// The `transformer_id` of `JavaScript` transformations.
    public static let transformerID = "JavaScript"

    public var settings: TransformationSettings

    /// A builder for the transformation `id` (scope `.afterProcessors` until set).
    public init(id: String) {
        settings = TransformationSettings(id: id, transformerID: Self.transformerID)
    }

    /// A builder for the transformation `id` running `code`.
    public init(id: String, code: String) {
        self = Self(id: id).setCode(code)
    }

    /// Sets the script: the body of a function run once per event.
    public func setCode(_ code: String) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.code] = .string(code)
        return copy
    }

    /// Sets how long one run may take before it is stopped and the event passes unchanged.
    public func setTimeLimit(_ limit: Duration) -> Self {
        var copy = self
        let milliseconds = JavaScriptContext.seconds(limit) * 1000
        copy.settings.configuration.values[Keys.timeLimit] =
            Int64(exactly: milliseconds).map(JSONValue.int) ?? .double(milliseconds)
        return copy
    }

    /// The configuration keys.
    enum Keys {
        static let code = "js_code"
        static let timeLimit = "timeout_ms"
    }
}
