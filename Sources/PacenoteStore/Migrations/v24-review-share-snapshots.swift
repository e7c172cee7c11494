import GRDB

extension Schema {
    /// v24: a published review keeps what strangers see (issue 51, point 3): its page's
    /// title, status line, preview text and content, and its card, fixed when it is
    /// published (`ReviewSnapshot`). Shares published before have none until first shown.
    static func v24ReviewShareSnapshots(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE review_shares ADD COLUMN snapshot_title       TEXT;
            ALTER TABLE review_shares ADD COLUMN snapshot_status      TEXT;
            ALTER TABLE review_shares ADD COLUMN snapshot_description TEXT;
            ALTER TABLE review_shares ADD COLUMN snapshot_html        BLOB;  -- the page's content, rendered
            ALTER TABLE review_shares ADD COLUMN snapshot_card        BLOB;  -- card.png
            ALTER TABLE review_shares ADD COLUMN snapshot_at_ms       INTEGER;
            """)
    }
}
