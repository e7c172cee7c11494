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
        }
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
        return ReviewShare(token: row["token"], from: row["range_from"], to: row["range_to"],
                           sections: (try? ReviewSection.parse(names).get()) ?? [], createdAt: Store.date(milliseconds: row["created_at_ms"]))
    }
}
