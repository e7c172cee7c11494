import GRDB
import PacenoteCore

/// Migration "v10.curation" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Curation (`Store+Curation`): every delete, edit, addition and merge is one entry of
    /// `curation_log`, with what undoing it needs; a merged track, artist or album keeps its
    /// row, pointing at the one it was merged into (`merged_into`), so that a later play,
    /// submission or import under its name, file or key lands on the kept one.
    static func v10Curation(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE curation_log (
              id           INTEGER PRIMARY KEY,
              at_ms        INTEGER NOT NULL,
              kind         TEXT NOT NULL CHECK (kind IN ('delete', 'edit', 'add', 'merge', 'rule')),
              summary      TEXT NOT NULL,             -- one line for people: 'Merged artist 4 into 2'
              request_json TEXT NOT NULL,             -- what was asked, as the API takes it
              undo_json    TEXT NOT NULL,             -- what undoing it needs (CurationUndo)
              touches      TEXT NOT NULL,             -- ' play:1 track:2 artist:3 ': what a later entry may depend on
              source       TEXT NOT NULL,             -- 'api', 'site', 'listenbrainz', 'cli'
              undone_at_ms INTEGER
            );
            ALTER TABLE tracks ADD COLUMN merged_into INTEGER REFERENCES tracks(id);
            ALTER TABLE artists ADD COLUMN merged_into INTEGER REFERENCES artists(id);
            ALTER TABLE albums ADD COLUMN merged_into INTEGER REFERENCES albums(id);
            """)
    }
}
