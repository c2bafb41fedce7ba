import TelemetryKitConventions

extension CalendarProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// Day of the month, 1–31 (Int).
        public static let dayOfMonth = DefaultParams.Calendar.dayOfMonth.rawValue
        /// Day of the week, Monday = 1 … Sunday = 7 (Int).
        public static let dayOfWeek = DefaultParams.Calendar.dayOfWeek.rawValue
        /// Day of the year, 1–366 (Int).
        public static let dayOfYear = DefaultParams.Calendar.dayOfYear.rawValue
        /// Week of the year, 1–53: Sunday-first weeks, week 1 holds January 1 (Int).
        public static let weekOfYear = DefaultParams.Calendar.weekOfYear.rawValue
        /// Whether the day is a Saturday or a Sunday (Bool).
        public static let isWeekend = DefaultParams.Calendar.isWeekend.rawValue
        /// Month of the year, 1–12 (Int).
        public static let monthOfYear = DefaultParams.Calendar.monthOfYear.rawValue
        /// Quarter of the year, 1–4 (Int).
        public static let quarterOfYear = DefaultParams.Calendar.quarterOfYear.rawValue
        /// Hour of the day, 1–24: the hour from midnight is 1, as TelemetryDeck v3 sends it (Int).
        public static let hourOfDay = DefaultParams.Calendar.hourOfDay.rawValue

        /// Every key, in the order of the spec's table.
        public static let all: [String] = [
            dayOfMonth, dayOfWeek, dayOfYear, weekOfYear, isWeekend, monthOfYear, quarterOfYear, hourOfDay,
        ]
    }
}
