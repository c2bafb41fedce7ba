public import Foundation
public import TelemetryKit
import TelemetryKitSupport

/// Adds the app's locale and the user's language and region: the four keys of ``Keys``,
/// all `String`.
///
/// Everything is resolved once, in `init`; per event the processor adds one precomputed
/// dictionary.
///
/// **Apple platforms:** `RunContext.locale` is the locale's identifier, `RunContext.language`
/// the language of the bundle's first preferred localization (else the locale's),
/// `UserPreference.language` the language of the first preferred language, and
/// `UserPreference.region` the locale's region.
///
/// **Linux and other platforms:** `Locale.current` there ignores the POSIX environment
/// (it is `en_001` whatever `LANG` says), so the environment decides: the first non-empty of
/// `LC_ALL`, `LC_MESSAGES` and `LANG` (POSIX precedence), with encoding and modifier cut
/// (`de_DE.UTF-8@euro` → `de_DE`), gives the locale, language and region.
/// `UserPreference.language` is the first entry of GNU `LANGUAGE` (`pt_BR:en` → `pt`) when
/// set, else that language. When the environment names no usable locale (`C`, `POSIX`, unset
/// or malformed), `locale` and `preferredLanguages` are used as on Apple platforms: on a
/// bare system that reports `en_001`, `en`, `en` and region `001`.
///
/// A key whose value cannot be determined (a locale without a region, e.g. `LANG=de.UTF-8`)
/// is left out rather than sent empty.
///
/// ```swift
/// let processor = LocaleProcessor(environment: ["LANG": "de_DE.UTF-8"])
/// // RunContext.locale "de_DE", RunContext.language "de", UserPreference.language "de",
/// // UserPreference.region "DE" (on Linux)
/// ```
public struct LocaleProcessor: SynchronousEventProcessor {
    /// Every parameter this processor adds.
    public let parameters: [String: PayloadValue]

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - locale: The app's locale (default: the current one).
    ///   - environment: The process environment, consulted on platforms without system
    ///     locale preferences (default, nil: the real one).
    ///   - preferredLanguages: The user's languages in order of preference (default:
    ///     `Locale.preferredLanguages`).
    public init(
        locale: Locale = .current,
        environment: [String: String]? = nil,
        preferredLanguages: [String] = Locale.preferredLanguages
    ) {
        #if canImport(Darwin)
        let appLanguage = Bundle.main.preferredLocalizations.first.flatMap(LocaleProcessor.languageCode(of:))
        let resolved = LocaleProcessor.resolve(
            locale: locale,
            appLanguage: appLanguage,
            preferredLanguages: preferredLanguages
        )
        #else
        let resolved = LocaleProcessor.resolve(
            environment: environment.map { environment in { environment[$0] } } ?? ProcessEnvironment.value(of:),
            fallbackLocale: locale,
            preferredLanguages: preferredLanguages
        )
        #endif
        var parameters = [String: PayloadValue]()
        parameters[Keys.locale] = resolved.locale.map(PayloadValue.string)
        parameters[Keys.language] = resolved.language.map(PayloadValue.string)
        parameters[Keys.preferredLanguage] = resolved.preferredLanguage.map(PayloadValue.string)
        parameters[Keys.region] = resolved.region.map(PayloadValue.string)
        self.parameters = parameters
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.addParameters(parameters)
    }
}

extension LocaleProcessor {
    struct Resolved {
        var locale: String?
        var language: String?
        var preferredLanguage: String?
        var region: String?
    }

    static func resolve(locale: Locale, appLanguage: String?, preferredLanguages: [String]) -> Resolved {
        let language = locale.language.languageCode?.identifier
        let identifier = locale.identifier
        return Resolved(
            locale: identifier.isEmpty ? nil : identifier,
            language: appLanguage ?? language,
            preferredLanguage: preferredLanguages.first.flatMap(languageCode(of:)) ?? appLanguage ?? language,
            region: locale.region?.identifier
        )
    }

    static func resolve(
        environment: (String) -> String?,
        fallbackLocale: Locale,
        preferredLanguages: [String]
    ) -> Resolved {
        let configured = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap(environment).first { !$0.isEmpty }
        guard let configured, let name = POSIXLocaleName(configured) else {
            return resolve(locale: fallbackLocale, appLanguage: nil, preferredLanguages: preferredLanguages)
        }
        // GNU gettext reads LANGUAGE only when a real locale is set, and so do we.
        let preferred = environment("LANGUAGE")?.split(separator: ":").lazy.compactMap { POSIXLocaleName(String($0)) }
            .first?.language
        return Resolved(
            locale: name.identifier,
            language: name.language,
            preferredLanguage: preferred ?? name.language,
            region: name.region
        )
    }

    /// The language code of a locale identifier or BCP 47 tag: `en-GB` → `en`, `zh-Hant` → `zh`.
    static func languageCode(of identifier: String) -> String? {
        Locale(identifier: identifier).language.languageCode?.identifier
    }
}

/// A POSIX locale name such as `de_DE.UTF-8@euro`, reduced to language and region.
struct POSIXLocaleName: Equatable {
    /// Lowercase ISO 639 code, 2 or 3 letters.
    let language: String
    /// Uppercase ISO 3166 code or a 3-digit UN M.49 area, if the name has one.
    let region: String?

    var identifier: String {
        region.map { "\(language)_\($0)" } ?? language
    }

    /// Parses `language[_REGION][.encoding][@modifier]`; nil for `C`, `POSIX` and anything
    /// malformed.
    init?(_ raw: String) {
        let name = raw.prefix { $0 != "." && $0 != "@" }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let language = parts[0]
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        self.language = language.lowercased()
        if parts.count == 2 {
            let region = parts[1]
            let isAlpha = region.count == 2 && region.allSatisfy { $0.isASCII && $0.isLetter }
            let isNumeric = region.count == 3 && region.allSatisfy { $0.isASCII && $0.isNumber }
            guard isAlpha || isNumeric else { return nil }
            self.region = region.uppercased()
        } else {
            self.region = nil
        }
    }
}
