import Foundation
import Metrics
import PacenoteCore
import PacenoteStore

/// The public share of a review (`/review/shared/TOKEN`) and its card: what the snapshot
/// taken at publishing says (`ReviewSnapshot`, issue 51 point 3), never the live history.
/// Read live, a share's totals moved a second after each play, "+40100 % on the period
/// before" gave away a period that was not published, and each `card.png` was drawn again
/// (40–80 ms of CPU: eight clients in a loop slowed the owner's own reads).
extension API {
    // MARK: /review/shared/TOKEN — the public page

    /// The share, with what it shows. A share published before snapshots were kept gets one
    /// now, once: from then on it is as fixed as the others.
    func publishedReview(_ token: String) throws -> (share: ReviewShare, snapshot: ReviewSnapshot) {
        guard ReviewShare.isToken(token), let share = try context.store.reviewShare(token: token) else {
            throw APIError.notFound("There is no published review here.")
        }
        if let snapshot = share.snapshot { return (share, snapshot) }
        let snapshot = try reviewSnapshot(from: share.from, to: share.to, sections: share.sections)
        try context.operations.republishReview(token: share.token, snapshot: snapshot)
        return (share, snapshot)
    }

    /// What a share of `from`…`to` showing `sections` shows, from the history as it is now:
    /// the page's content rendered for a stranger (no links into the private pages) and the
    /// card drawn, both kept with the share.
    /// `asOf`: the day a snapshot is taken again as of (`retakeReviewSnapshots`), read
    /// from the history as it is, past the cache.
    func reviewSnapshot(from: String, to: String, sections: Set<ReviewSection>, at given: Date? = nil,
                        asOf day: String? = nil) throws -> ReviewSnapshot {
        let now = given ?? context.clock.now()
        let query = from <= "0000-01-01" ? ["range": "all"] : ["from": from, "to": to]
        let asked = try reviewPeriod(query, today: day)
        let full = day == nil ? try reviewReport(asked) : try context.store.review(asked, limit: 10, weekStart: weekStart)
        let report = ReviewSnapshot.publishable(full, sections: sections)
        let period = report.period
        let title = "My " + reviewTitle(period).replacingOccurrences(of: " in music", with: "") + " in music"
        let status = reviewStatus(period)
        let lines = ReviewCard.lines(report, title: title, subtitle: status, sections: sections)
        var content: [UInt8] = []
        reviewContent(report, sections: sections, linked: false).render(into: &content)
        let cardLines = ReviewCard.lines(report, title: period.kind == .year ? "\(period.name) in music" : reviewTitle(period),
                                         subtitle: period.isUnderWay ? "So far · up to \(shortDay(period.to))" : "Pacenote review",
                                         sections: sections)
        // The card's colour follows the period, so that publishing again keeps it.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (from + to).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let card = ReviewCard.png(cardLines, hue: Double(hash % 360))
        Counter(label: "pacenote_public_images_drawn_total", dimensions: [("image", "review_card")]).increment()
        return ReviewSnapshot(title: title, status: status, description: lines.dropFirst(2).map(\.text).joined(separator: ". "),
                              content: content, card: card, takenAt: now)
    }

    func reviewSharedPage(_ token: String, _ request: HTTPRequest, mayReadPrivate: Bool) throws -> HTTPResponse {
        let (share, snapshot) = try publishedReview(token)
        let image = absoluteURL(reviewSharePath(share) + "/card.png", request)
        let meta: [(String, String, String)] = [
            ("property", "og:type", "website"), ("property", "og:site_name", "Pacenote"), ("property", "og:title", snapshot.title),
            ("property", "og:description", snapshot.description), ("property", "og:image", image),
            ("property", "og:image:width", String(ReviewCard.width)), ("property", "og:image:height", String(ReviewCard.height)),
            ("property", "og:url", absoluteURL(reviewSharePath(share), request)),
            ("name", "twitter:card", "summary_large_image"), ("name", "twitter:title", snapshot.title),
            ("name", "twitter:description", snapshot.description), ("name", "twitter:image", image),
            ("name", "description", snapshot.description),
        ]
        let head = meta.map { kind, name, content in
            Node.el("meta", attributes: [Attribute(name: kind, value: name), Attribute(name: "content", value: content)])
        }
        var response = html(title: snapshot.title, request: request, nav: mayReadPrivate ? "stats" : nil, head: head) {
            Node.el("div", ["class": "review-head", "data-review-shared": share.token]) {
                Node.el("h1") { snapshot.title }
                Node.el("p", ["class": "muted"]) { snapshot.status }
            }
            Node.prerendered(snapshot.content)
        }
        // Not kept by shared caches (unlike a song of the day's page): withdrawn, it is gone at once.
        response.headers.append(("Vary", "Cookie"))
        return response
    }

    /// `/review/shared/TOKEN/card.png`: the card drawn when the share was published, the
    /// same bytes on every request (the server's ETag answers a revalidation with a 304).
    func reviewCard(_ token: String) throws -> HTTPResponse {
        let (_, snapshot) = try publishedReview(token)
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", "image/png"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
        ], body: snapshot.card)
    }
}
