import GRDB
import PacenoteCore

/// Migration "v23.search-without-sizes" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v23: the search index without its per-row column sizes (FTS5's `columnsize=0`). They
    /// serve only ranking by relevance (bm25), which no search here does (a search filters
    /// the plays: `Store+Plays`); without them an index row is a third cheaper to write, which
    /// an import of new music pays once per track. Built again from `tracks`.
    static func v23SearchWithoutSizes(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE tracks_fts;
            CREATE VIRTUAL TABLE tracks_fts USING fts5(
              title, artist, album, content = 'tracks', content_rowid = 'id',
              tokenize = 'unicode61 remove_diacritics 2', columnsize = 0
            );
            INSERT INTO tracks_fts (tracks_fts) VALUES ('rebuild');
            """)
    }
}
