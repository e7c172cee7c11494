import GRDB

/// Migration "v33.beat-confidence" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// How clear a track's beat is (issue 56): aubio's beat tracker's confidence, 0…1, measured
    /// by `pacenote analyze` from the audio. NULL until measured. The recommender ranks tracks
    /// with a clear beat higher when there is a tempo to run to, as Beatrun ranks on it.
    static func v33BeatConfidence(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE tracks ADD COLUMN beat_confidence REAL
                CHECK (beat_confidence IS NULL OR beat_confidence BETWEEN 0 AND 1);
            """)
    }
}
