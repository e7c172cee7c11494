import GRDB

/// Migration "v32.tempo-plays" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Tempo-matched playback (issue 56): a play of a copy Pacenote rendered at another tempo is
    /// a play of the original track, with the tempo it was played at (`played_bpm`) and the
    /// factor (`tempo_ratio`, 1.05: 5 % faster). NULL for a play at the track's own tempo.
    /// Hidden plays keep the same columns: a play moves between the two tables whole.
    static func v32TempoPlays(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE plays ADD COLUMN played_bpm REAL CHECK (played_bpm IS NULL OR played_bpm > 0);
            ALTER TABLE plays ADD COLUMN tempo_ratio REAL CHECK (tempo_ratio IS NULL OR tempo_ratio > 0);
            ALTER TABLE hidden_plays ADD COLUMN played_bpm REAL CHECK (played_bpm IS NULL OR played_bpm > 0);
            ALTER TABLE hidden_plays ADD COLUMN tempo_ratio REAL CHECK (tempo_ratio IS NULL OR tempo_ratio > 0);
            """)
    }
}
