import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitLocale
import Testing

private func payload(
    _ processor: LocaleProcessor,
    parameters: EventParameters = [:]
) async throws
    -> [String: PayloadValue]
{
    let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
    return try await pipeline.process(EventInput("x", parameters: parameters)).payload
}

private func expected(locale: String, language: String, preferred: String, region: String?) -> [String: PayloadValue] {
    var values: [String: PayloadValue] = [
        "TelemetryDeck.RunContext.locale": .string(locale),
        "TelemetryDeck.RunContext.language": .string(language),
        "TelemetryDeck.UserPreference.language": .string(preferred),
    ]
    if let region { values["TelemetryDeck.UserPreference.region"] = .string(region) }
    return values
}

struct LocaleProcessorTests {
    @Test func keysAreTheSpecNames() {
        #expect(
            LocaleProcessor.Keys.all == [
                "TelemetryDeck.RunContext.locale",
                "TelemetryDeck.RunContext.language",
                "TelemetryDeck.UserPreference.language",
                "TelemetryDeck.UserPreference.region",
            ]
        )
    }

    @Test func eventParametersWinAndEveryValueIsAString() async throws {
        let processor = LocaleProcessor(
            locale: Locale(identifier: "en_US"),
            environment: ["LANG": "en_US.UTF-8"],
            preferredLanguages: ["en-US"]
        )
        let values = try await payload(processor, parameters: [LocaleProcessor.Keys.region: "XX"])
        #expect(values[LocaleProcessor.Keys.region] == .string("XX"))
        for key in LocaleProcessor.Keys.all {
            guard case .string(let value)? = values[key] else {
                Issue.record("\(key) is not a String: \(String(describing: values[key]))")
                continue
            }
            #expect(!value.isEmpty)
        }
    }
}

#if !canImport(Darwin)
/// On Linux the POSIX environment decides (Locale.current ignores it there).
struct LinuxLocaleEnvironmentTests {
    /// A locale and languages that differ from every environment below, to show which won.
    let fallback = Locale(identifier: "fr_CA")
    let fallbackLanguages = ["es-MX"]

    private func processor(_ environment: [String: String]) -> LocaleProcessor {
        LocaleProcessor(locale: fallback, environment: environment, preferredLanguages: fallbackLanguages)
    }

    @Test func langGivesLocaleLanguageAndRegion() async throws {
        let values = try await payload(processor(["LANG": "de_DE.UTF-8"]))
        #expect(values == expected(locale: "de_DE", language: "de", preferred: "de", region: "DE"))
    }

    @Test func lcAllBeatsLcMessagesBeatsLang() async throws {
        let all = processor(["LC_ALL": "fr_CH.UTF-8", "LC_MESSAGES": "it_IT.UTF-8", "LANG": "de_DE.UTF-8"])
        #expect(all.parameters == expected(locale: "fr_CH", language: "fr", preferred: "fr", region: "CH"))
        let messages = processor(["LC_MESSAGES": "it_IT.UTF-8", "LANG": "de_DE.UTF-8"])
        #expect(messages.parameters == expected(locale: "it_IT", language: "it", preferred: "it", region: "IT"))
        let emptyAll = processor(["LC_ALL": "", "LANG": "nl_BE.ISO-8859-1"])
        #expect(emptyAll.parameters == expected(locale: "nl_BE", language: "nl", preferred: "nl", region: "BE"))
    }

    @Test func languageListGivesThePreferredLanguage() {
        let values = processor(["LANG": "de_DE.UTF-8", "LANGUAGE": "pt_BR:en"]).parameters
        #expect(values == expected(locale: "de_DE", language: "de", preferred: "pt", region: "DE"))
        let skipsMalformed = processor(["LANG": "de_DE.UTF-8", "LANGUAGE": "::C:sv"]).parameters
        #expect(skipsMalformed[LocaleProcessor.Keys.preferredLanguage] == .string("sv"))
    }

    @Test(arguments: [
        [:],
        ["LANG": "C.UTF-8"],
        ["LANG": "C"],
        ["LC_ALL": "POSIX", "LANG": "de_DE.UTF-8"],
        ["LANG": "not a locale!"],
        ["LANG": "C.UTF-8", "LANGUAGE": "pt_BR"],
    ])
    func noUsableEnvironmentFallsBackToTheLocale(environment: [String: String]) {
        #expect(
            processor(environment).parameters
                == expected(locale: "fr_CA", language: "fr", preferred: "es", region: "CA")
        )
    }

    @Test func modifiersEncodingsAndCaseAreNormalised() {
        #expect(
            processor(["LANG": "sr_RS.UTF-8@latin"]).parameters
                == expected(locale: "sr_RS", language: "sr", preferred: "sr", region: "RS")
        )
        #expect(
            processor(["LANG": "EN_gb.utf8"]).parameters
                == expected(locale: "en_GB", language: "en", preferred: "en", region: "GB")
        )
        #expect(
            processor(["LANG": "es_419.UTF-8"]).parameters
                == expected(locale: "es_419", language: "es", preferred: "es", region: "419")
        )
        #expect(
            processor(["LANG": "fil_PH"]).parameters
                == expected(locale: "fil_PH", language: "fil", preferred: "fil", region: "PH")
        )
    }

    @Test func localeWithoutRegionLeavesRegionOut() {
        #expect(
            processor(["LANG": "de.UTF-8"]).parameters
                == expected(locale: "de", language: "de", preferred: "de", region: nil)
        )
    }

    @Test func bareSystemReportsTheDefaultLocale() {
        // What a container with LANG=C.UTF-8 reports: Foundation's default, not an empty value.
        let values = LocaleProcessor(
            locale: Locale(identifier: "en_001"),
            environment: ["LANG": "C.UTF-8"],
            preferredLanguages: ["en-001"]
        ).parameters
        #expect(values == expected(locale: "en_001", language: "en", preferred: "en", region: "001"))
    }
}
#endif
