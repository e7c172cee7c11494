import PacenoteCore

// `[site]`: how the site and the statistics APIs present the history.
extension ConfigSchema {
    static let site = ConfigSection<Config>(name: "site", doc: "", keys: [
        ConfigKey("week_starts", \.weekStart, word(WeekStart.self), env: ["PACENOTE_WEEK_STARTS"], doc: """
            The day weeks begin on: "monday" (ISO 8601, the default), "sunday" or "saturday".
            Every weekly figure follows it: the stats' "week", ListenBrainz's this_week and week
            (/1/stats/user/…), the heatmap's columns and the song-of-the-day calendar.
            """),
        ConfigKey("units", \.units, word(WorkoutMeasures.Units.self), env: ["PACENOTE_UNITS"], doc: """
            How workouts are measured on the pages and in the API: "metric" (kilometres, pace
            per kilometre, the default) or "imperial" (miles, pace per mile). Splits follow it.
            """),
    ])
}
