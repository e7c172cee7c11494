import GRDB
import PacenoteCore

/// Migration "v9.page-indexes" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Rollups per calendar month, of tracks, artists and albums, and the months' totals:
    /// a range's whole months are a row per track (artist, album) and month, its whole years
    /// a row per year, so a chart of any range reads the best rows of each (`Store.topRows`,
    /// `RangeChart`) instead of a row per day and track. The track and entity triggers are
    /// created again to keep them; existing rows are summed from the day and track rollups.
    /// Indexes that pages and charts read instead of whole tables:
    /// - the plays that have a heart-rate zone, by track: a track's, artist's or album's page
    ///   counts its plays per zone from these alone (most plays have none: an import's never
    ///   do), not from every play of its tracks;
    /// - artists and albums of all time and of each year by plays, as tracks have had since
    ///   v1: their charts read about as many rows as they show (`Store.topRows`), not a row
    ///   per artist or album.
    static func v9PageIndexes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX plays_zoned ON plays(track_id, zone, counted) WHERE zone IS NOT NULL;
            CREATE INDEX rollup_artist_total_top ON rollup_artist_total(plays DESC, played_s DESC);
            CREATE INDEX rollup_album_total_top ON rollup_album_total(plays DESC, played_s DESC);
            CREATE INDEX rollup_year_artist_top ON rollup_year_artist(year, plays DESC, played_s DESC);
            CREATE INDEX rollup_year_album_top ON rollup_year_album(year, plays DESC, played_s DESC);
            """)
    }
}
