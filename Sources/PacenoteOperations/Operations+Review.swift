import Foundation
import PacenoteCore
import PacenoteStore

/// Publishing a review (issue 22, point 2): a share of a period's review behind a random
/// token, showing the sections the owner ticked, and withdrawing it.
extension Operations {
    /// Publishes the review of `from`…`to` (a period's own days: a year under way keeps its
    /// 31 December) showing `sections`, as `snapshot` shows them: the share stays as it was
    /// published until it is published again (`republishReview`).
    public func publishReview(from: String, to: String, sections: Set<ReviewSection>, snapshot: ReviewSnapshot? = nil,
                              at now: Date = Date()) throws -> ReviewShare {
        guard CivilDate.days(of: from) != nil || from == "0000-01-01", CivilDate.days(of: to) != nil || to == "9999-12-31", from <= to else {
            throw OperationError.invalid("invalid_range", "the period is not a range of days")
        }
        guard !sections.isEmpty else { throw OperationError.invalid("invalid_sections", "tick at least one part to show") }
        let share = ReviewShare(token: ReviewShare.newToken(), from: from, to: to, sections: sections, createdAt: now, snapshot: snapshot)
        do { try store.addReviewShare(share) } catch { throw OperationError.from(error) }
        return share
    }

    /// Withdraws a share: its page and card are gone (404) at once.
    @discardableResult
    public func withdrawReview(token: String) throws -> ReviewShare {
        let deleted: ReviewShare?
        do { deleted = try store.deleteReviewShare(token: token) } catch { throw OperationError.from(error) }
        guard let deleted else { throw OperationError.notFound("no published review \(token)") }
        return deleted
    }

    /// Publishes a share again: what strangers see becomes `snapshot` (the history as it is
    /// now), at the same address.
    public func republishReview(token: String, snapshot: ReviewSnapshot) throws {
        let found: Bool
        do { found = try store.setReviewSnapshot(token: token, snapshot) } catch { throw OperationError.from(error) }
        guard found else { throw OperationError.notFound("no published review \(token)") }
    }
}
