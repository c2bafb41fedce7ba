/// The transformers that ship with the module, and their configuration checks.
enum BuiltInTransformers {
    enum Kind: String, Sendable, CaseIterable {
        case setDataValues = "SetDataValues"
        case persistDataValue = "PersistDataValue"
        case lowercase = "Lowercase"
    }

    /// Checks the configuration of a built-in transformer's settings; other settings pass.
    static func validate(_ settings: TransformationSettings) throws(TransformationSettingsError) {
        guard let kind = Kind(rawValue: settings.transformerID) else { return }
        let reader = configurationReader(settings)
        switch kind {
        case .setDataValues: _ = try SetDataValuesTransformer.Plan(reader: reader)
        case .persistDataValue: _ = try PersistDataValueTransformer.Plan(reader: reader)
        case .lowercase: _ = try LowercaseTransformer.Plan(reader: reader)
        }
    }

    /// The transformation for `settings`, with its configuration parsed.
    static func make(
        _ kind: Kind,
        settings: TransformationSettings,
        context: TransformerContext
    ) throws(TransformationSettingsError) -> TransformationBody {
        let reader = configurationReader(settings)
        switch kind {
        case .setDataValues:
            return .setDataValues(SetDataValuesTransformer(plan: try SetDataValuesTransformer.Plan(reader: reader)))
        case .persistDataValue:
            return .persistDataValue(
                PersistDataValueTransformer(
                    plan: try PersistDataValueTransformer.Plan(reader: reader),
                    transformationID: settings.id,
                    context: context
                )
            )
        case .lowercase:
            return .lowercase(LowercaseTransformer(plan: try LowercaseTransformer.Plan(reader: reader)))
        }
    }

    private static func configurationReader(_ settings: TransformationSettings) -> SettingsReader {
        SettingsReader(.object(settings.configuration.values), path: TransformationSettings.Keys.configuration)
    }
}
