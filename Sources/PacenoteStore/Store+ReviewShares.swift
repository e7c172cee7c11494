import Foundation
import GRDB
import PacenoteCore

/// Published reviews (`review_shares`): written only through `Operations.publishReview`
/// and `withdrawReview`.
extension Store {
    public func addReviewShare(_ share: ReviewShare) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                INSERT INTO review_shares (token, range_from, range_to, sections, created_at_ms) VALUES (?, ?, ?, ?, ?)
                """, arguments: [share.token, share.from, share.to, ReviewSection.text(share.sections), Store.milliseconds(share.createdAt)])
            if let snapshot = share.snapshot { try Store.setSnapshot(snapshot, token: share.token, in: db) }
        }
    }

    /// Replaces what a share shows (publishing it again); false when there is no such share.
    @discardableResult
    public func setReviewSnapshot(token: String, _ snapshot: ReviewSnapshot) throws(StoreError) -> Bool {
        try write { db in
            try Store.setSnapshot(snapshot, token: token, in: db)
            return db.changesCount > 0
        }
    }

    static func setSnapshot(_ s: ReviewSnapshot, token: String, in db: Database) throws {
        try db.execute(sql: """
            UPDATE review_shares SET snapshot_title = ?, snapshot_status = ?, snapshot_description = ?, snapshot_html = ?,
              snapshot_card = ?, snapshot_at_ms = ? WHERE token = ?
            """, arguments: [s.title, s.status, s.description, Data(s.content), Data(s.card), Store.milliseconds(s.takenAt), token])
    }

    public func reviewShares() throws(StoreError) -> [ReviewShare] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM review_shares ORDER BY created_at_ms DESC, token").map(Store.reviewShare(from:))
        }
    }

    public func reviewShare(token: String) throws(StoreError) -> ReviewShare? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM review_shares WHERE token = ?", arguments: [token]).map(Store.reviewShare(from:))
        }
    }

    /// Deletes a share, returning it; nil when there was none.
    public func deleteReviewShare(token: String) throws(StoreError) -> ReviewShare? {
        try write { db in
            let share = try Row.fetchOne(db, sql: "SELECT * FROM review_shares WHERE token = ?", arguments: [token]).map(Store.reviewShare(from:))
            try db.execute(sql: "DELETE FROM review_shares WHERE token = ?", arguments: [token])
            return share
        }
    }

    static func reviewShare(from row: Row) -> ReviewShare {
        let names = (row["sections"] as String).split(separator: ",").map(String.init)
        var snapshot: ReviewSnapshot?
        if let at: Int64 = row["snapshot_at_ms"] {
            snapshot = ReviewSnapshot(title: row["snapshot_title"] ?? "", status: row["snapshot_status"] ?? "",
                                      description: row["snapshot_description"] ?? "",
                                      content: [UInt8]((row["snapshot_html"] as Data?) ?? Data()),
                                      card: [UInt8]((row["snapshot_card"] as Data?) ?? Data()), takenAt: Store.date(milliseconds: at))
        }
        return ReviewShare(token: row["token"], from: row["range_from"], to: row["range_to"],
                           sections: (try? ReviewSection.parse(names).get()) ?? [], createdAt: Store.date(milliseconds: row["created_at_ms"]),
                           snapshot: snapshot)
    }
}
