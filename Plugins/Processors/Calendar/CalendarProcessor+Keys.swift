extension CalendarProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// Day of the month, 1–31 (Int).
        public static let dayOfMonth = "TelemetryDeck.Calendar.dayOfMonth"
        /// Day of the week, Monday = 1 … Sunday = 7 (Int).
        public static let dayOfWeek = "TelemetryDeck.Calendar.dayOfWeek"
        /// Day of the year, 1–366 (Int).
        public static let dayOfYear = "TelemetryDeck.Calendar.dayOfYear"
        /// ISO 8601 week of the year, 1–53 (Int).
        public static let weekOfYear = "TelemetryDeck.Calendar.weekOfYear"
        /// Whether the day is a Saturday or a Sunday (Bool).
        public static let isWeekend = "TelemetryDeck.Calendar.isWeekend"
        /// Month of the year, 1–12 (Int).
        public static let monthOfYear = "TelemetryDeck.Calendar.monthOfYear"
        /// Quarter of the year, 1–4 (Int).
        public static let quarterOfYear = "TelemetryDeck.Calendar.quarterOfYear"
        /// Hour of the day, 0–23 (Int).
        public static let hourOfDay = "TelemetryDeck.Calendar.hourOfDay"

        /// Every key, in the order of the spec's table.
        public static let all: [String] = [
            dayOfMonth, dayOfWeek, dayOfYear, weekOfYear, isWeekend, monthOfYear, quarterOfYear, hourOfDay,
        ]
    }
}
