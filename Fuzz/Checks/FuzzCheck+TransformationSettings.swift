import TelemetryKit
import TelemetryKitInMemoryStorage
import TelemetryKitTransformations

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzCheck {
    /// Strict and lenient loading agree: strict success means lenient loads the same settings
    /// with no errors; a strict failure means lenient fails too or reports skipped entries.
    /// Whatever loads can be built into transformations.
    static func checkTransformationSettings(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        let data = Data(bytes)
        var strict = TransformationConfiguration()
        let strictError: TransformationSettingsError?
        do {
            try strict.load(json: data)
            strictError = nil
        } catch {
            strictError = error
        }
        var lenient = TransformationConfiguration()
        let skipped: [TransformationSettingsError]
        do {
            skipped = try lenient.load(json: data, lenient: true)
        } catch {
            if strictError == nil {
                throw FuzzCheckFailure("strict loading succeeded, lenient loading threw \(error)")
            }
            return
        }
        if let strictError {
            guard !skipped.isEmpty else {
                throw FuzzCheckFailure("strict loading threw \(strictError), lenient loading skipped nothing")
            }
        } else {
            guard skipped.isEmpty, lenient.settings == strict.settings else {
                throw FuzzCheckFailure("strict loading succeeded, lenient loading differs (skipped \(skipped))")
            }
        }
        let made = lenient.transformations(storage: InMemoryProcessorStorage(), logger: SilentLogger())
        guard made.count <= lenient.settings.count else {
            throw FuzzCheckFailure("\(lenient.settings.count) settings made \(made.count) transformations")
        }
    }
}
