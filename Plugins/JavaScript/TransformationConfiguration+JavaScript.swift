public import TelemetryKitTransformations

extension TransformerRegistry {
    /// Registers ``JavaScriptTransformer`` under `"JavaScript"`; each configuration that makes
    /// its transformations gets its own transformer, logging to the configuration's logger.
    ///
    /// - Parameter timeLimit: how long one run may take when a transformation does not set
    ///   `timeout_ms`.
    public mutating func registerJavaScript(timeLimit: Duration = JavaScriptContext.defaultTimeLimit) {
        register(id: JavaScriptTransformer.transformerID) { context in
            JavaScriptTransformer(timeLimit: timeLimit, logger: context.logger)
        }
    }
}

extension TransformationConfiguration {
    /// Registers ``JavaScriptTransformer`` (see ``TransformerRegistry/registerJavaScript(timeLimit:)``).
    public mutating func registerJavaScript(timeLimit: Duration = JavaScriptContext.defaultTimeLimit) {
        registry.registerJavaScript(timeLimit: timeLimit)
    }
}
