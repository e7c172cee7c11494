import PacenoteCore

// `[site]`: how the site and the statistics APIs present the history.
extension ConfigSchema {
    static let site = ConfigSection<Config>(name: "site", doc: "", keys: [
        ConfigKey("week_starts", \.weekStart, word(WeekStart.self), env: ["PACENOTE_WEEK_STARTS"], doc: """
            The day weeks begin on: "monday" (ISO 8601, the default), "sunday" or "saturday".
            Every weekly figure follows it: the stats' "week", ListenBrainz's this_week and week
            (/1/stats/user/…), the heatmap's columns and the song-of-the-day calendar.
            """),
    ])
}
