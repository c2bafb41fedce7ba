public import TelemetryKit
import TelemetryKitSupport
public import TelemetryKitTransformations

/// Runs `JavaScript` transformations (`transformer_id` `"JavaScript"`): each transformation's
/// script against each event of its scope.
///
/// Register it, then add transformations with ``JavaScriptSettingsBuilder`` or JSON settings
/// (`{"js_code": "..."}`):
///
/// ```swift
/// var config = TransformationConfiguration()
/// config.registerJavaScript()
/// try config.load(json: Data(#"""
///     [{"transformation_id": "lowercase-city", "transformer_id": "JavaScript", "scope": "afterprocessors",
///       "configuration": {"js_code": "payload.city = payload.city.toLowerCase()"}}]
///     """#.utf8))
/// ```
///
/// Each transformation gets its own ``JavaScriptContext``, compiled on its first event and reused
/// (recompiled only when its code or time limit changes); runs of one transformation are
/// serialized. When the script does not compile, throws, runs past its time limit or leaves an
/// unusable `payload`, the event passes unchanged and a warning names the transformation and
/// the JavaScript error. A script that does not compile is reported once.
public final class JavaScriptTransformer: Transformer {
    /// The `transformer_id` this transformer runs.
    public static let transformerID = JavaScriptSettingsBuilder.transformerID

    public var id: String { Self.transformerID }

    /// The time limit of transformations that do not set `timeout_ms`.
    public let defaultTimeLimit: Duration

    private let logger: any Logging
    /// The compiled script of each transformation, by transformation id.
    private let contexts = Locked([String: Prepared]())

    /// A compiled script, or why there is none, for one version of a transformation's settings.
    private struct Prepared: Sendable {
        var code: String?
        var timeLimitSetting: JSONValue?
        var result: Result<JavaScriptContext, JavaScriptFailure>
    }

    /// A transformer whose scripts may run for `timeLimit` unless their settings say otherwise.
    ///
    /// - Parameter logger: receives the scripts' `console` output and the failures.
    public init(
        timeLimit: Duration = JavaScriptContext.defaultTimeLimit,
        logger: any Logging = StandardErrorLogger()
    ) {
        self.defaultTimeLimit = timeLimit > .zero ? timeLimit : JavaScriptContext.defaultTimeLimit
        self.logger = logger
    }

    public func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
        guard case .success(let context) = prepared(settings).result else { return event }
        switch context.run(event, destination: scope.destinationID) {
        case .transformed(let transformed):
            return transformed
        case .dropped:
            return nil
        case .failed(let failure):
            logger.log(
                .warning,
                "JavaScript transformation '\(settings.id)' left the event unchanged: \(failure)",
                eventName: event.type
            )
            return event
        }
    }

    /// Compiles the script of `settings` now instead of on its first event.
    ///
    /// - Throws: ``JavaScriptFailure`` when the configuration has no script, the script does not
    ///   compile, or JavaScriptCore is not available.
    public func prepare(_ settings: TransformationSettings) throws(JavaScriptFailure) {
        if case .failure(let failure) = prepared(settings).result { throw failure }
    }

    /// The context for `settings`, made (and any failure logged) the first time.
    private func prepared(_ settings: TransformationSettings) -> Prepared {
        let code = settings.configuration[JavaScriptSettingsBuilder.Keys.code]?.stringValue
        let timeLimitSetting = settings.configuration[JavaScriptSettingsBuilder.Keys.timeLimit]
        return contexts.withLock { contexts in
            if let existing = contexts[settings.id], existing.code == code,
                existing.timeLimitSetting == timeLimitSetting
            {
                return existing
            }
            // Compiling under the lock: it happens once per transformation, and a second caller
            // would otherwise compile the same script again.
            let prepared = Prepared(
                code: code,
                timeLimitSetting: timeLimitSetting,
                result: compile(code, settings, timeLimit(timeLimitSetting, of: settings))
            )
            contexts[settings.id] = prepared
            return prepared
        }
    }

    private func compile(
        _ code: String?,
        _ settings: TransformationSettings,
        _ timeLimit: Duration
    ) -> Result<JavaScriptContext, JavaScriptFailure> {
        let result: Result<JavaScriptContext, JavaScriptFailure>
        if let code {
            do {
                result = .success(
                    try JavaScriptContext(code: code, name: settings.id, timeLimit: timeLimit, logger: logger)
                )
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(
                JavaScriptFailure(
                    .invalidConfiguration,
                    "configuration.\(JavaScriptSettingsBuilder.Keys.code) must be a string with the script"
                )
            )
        }
        if case .failure(let failure) = result {
            logger.log(
                .warning,
                "JavaScript transformation '\(settings.id)' is skipped, events pass unchanged: \(failure)"
            )
        }
        return result
    }

    /// `timeout_ms` when it is a positive number, else the default.
    private func timeLimit(_ value: JSONValue?, of settings: TransformationSettings) -> Duration {
        guard let value else { return defaultTimeLimit }
        guard let milliseconds = value.doubleValue, milliseconds > 0, milliseconds.isFinite else {
            logger.log(
                .warning,
                "JavaScript transformation '\(settings.id)': configuration.\(JavaScriptSettingsBuilder.Keys.timeLimit) "
                    + "must be a positive number of milliseconds; using \(JavaScriptContext.milliseconds(defaultTimeLimit)) ms"
            )
            return defaultTimeLimit
        }
        return .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
    }
}
