import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Published reviews after a merge (issue 52, row 8). A published review is frozen so that
/// strangers do not follow the owner's listening (issue 51, point 3), but a merge corrects
/// names, it is not listening: every share's snapshot is taken again as of the day it was
/// taken (no day after it enters), so its page, preview text and card show the kept name,
/// with the two spellings' plays as one row. Rewriting names inside the frozen HTML could
/// not join the two rows nor redraw the card; resolving names when the page is served
/// would mean keeping the report rather than the page, and drawing the card per request,
/// which the snapshot exists to avoid. The cost: a share of a period under way shows the
/// plays of its day up to the end of that day, not only up to the minute it was taken.
extension API {
    /// Takes every share's snapshot again after `entry`, when it is a merge or a merge's
    /// undo; a share that cannot be taken again keeps the one it had, and the log says so.
    func retakeReviewSnapshots(after entry: CurationEntry) {
        guard entry.kind == .merge else { return }
        let shares: [ReviewShare]
        do { shares = try context.store.reviewShares() } catch {
            context.logger.warning("published reviews not updated after curation entry \(entry.id): \(error)")
            return
        }
        for share in shares {
            guard let old = share.snapshot else { continue }
            do {
                let snapshot = try reviewSnapshot(from: share.from, to: share.to, sections: share.sections, at: old.takenAt,
                                                  asOf: localTime.day(of: old.takenAt))
                try context.operations.republishReview(token: share.token, snapshot: snapshot)
            } catch {
                context.logger.warning("the published review of \(share.from)…\(share.to) keeps its names from before curation entry \(entry.id): \(error)")
            }
        }
    }
}
