import Foundation
import PacenoteCore
import PacenoteStore

/// The year in review (issue 22): `/review` (this year so far), `/review/2026`,
/// `/review/2026-11` and `/review?from=…&to=…` — private like the history —, the forms that
/// publish a share of it and withdraw one, and the public share page with its card.
extension API {
    // MARK: /review — the private page

    func reviewPage(_ path: String?, _ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        var query = request.query
        if let path {
            // A year or a month in the address.
            guard (path.count == 4 && Int(path) != nil) || (path.count == 7 && path.dropFirst(4).first == "-") else {
                throw APIError.notFound("no such page: /review/\(path)")
            }
            query = ["range": path]
        }
        let period = try reviewPeriod(query)
        let report = try reviewReport(period)
        let shares = try context.store.reviewShares().filter { $0.from == period.from && $0.to == period.end }
        let title = reviewTitle(period)
        let thisYear = Int(localTime.day(of: context.clock.now()).prefix(4)) ?? 2000
        let month = String(localTime.day(of: context.clock.now()).prefix(7))
        let previousMonth = ReviewPeriod.shifted(month + "-01", months: -1).prefix(7)
        return html(title: title, request: request, nav: "stats") {
            Node.el("div", ["class": "review-head"]) {
                Node.el("h1") { title }
                Node.el("p", ["class": "muted", "data-review-status": period.isFinal ? "final" : "so-far"]) { reviewStatus(period) }
            }
            Node.el("nav", ["class": "ranges no-print", "aria-label": "Period"]) {
                for y in [thisYear, thisYear - 1, thisYear - 2] {
                    Node.el("a", ["href": url("/review/\(y)"), "aria-current": period.name == String(y) ? "page" : nil]) { String(y) }
                }
                for m in [month, String(previousMonth)] {
                    Node.el("a", ["href": url("/review/\(m)"), "aria-current": period.name == m ? "page" : nil]) { format.month(m) }
                }
            }
            Node.el("form", ["method": "get", "action": url("/review"), "class": "search no-print"]) {
                Node.el("label", ["for": "review-from"]) { "From" }
                Node.el("input", ["id": "review-from", "name": "from", "type": "date", "value": period.kind == .custom ? period.from : nil])
                Node.el("label", ["for": "review-to"]) { "to" }
                Node.el("input", ["id": "review-to", "name": "to", "type": "date", "value": period.kind == .custom ? period.end : nil])
                Node.el("button", ["type": "submit"]) { "Review" }
            }
            reviewContent(report, sections: Set(ReviewSection.allCases), linked: true)
            reviewSharing(period, shares: shares, request: request, mayWrite: mayWrite)
        }
    }

    /// "2026 in music", "November 2026 in music", "1 March – 31 May 2026".
    func reviewTitle(_ p: ReviewPeriod) -> String {
        switch p.kind {
        case .year: "\(p.name) in music"
        case .month: "\(format.month(p.name)) in music"
        case .all: "All time in music"
        case .custom: "\(shortDay(p.from)) – \(shortDay(p.end)) in music"
        }
    }

    /// "1 March 2026".
    func shortDay(_ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return day }
        return "\(parts[2]) \(SiteFormat.months[parts[1] - 1]) \(parts[0])"
    }

    func reviewStatus(_ p: ReviewPeriod) -> String {
        if p.kind == .all { return "Everything logged so far." }
        if p.isUnderWay { return "So far: up to \(shortDay(p.to)). The figures are final once \(shortDay(p.end)) has ended." }
        if p.isFinal { return "Final. Imports and corrections still change it; it is rebuilt from the history each time." }
        return "Up to today."
    }

    /// Publishing: what the share will show (heart rate unticked), the shares of this period
    /// with their address and a button to withdraw each.
    func reviewSharing(_ period: ReviewPeriod, shares: [ReviewShare], request: HTTPRequest, mayWrite: Bool) -> Node {
        let back = pageAddress(request)
        return .el("section", ["class": "card no-print", "aria-labelledby": "share-h", "data-review-sharing": ""]) {
            Node.el("h2", ["id": "share-h"]) { "Share" }
            Node.el("p", ["class": "muted small"]) {
                "A published review is a public page with a picture for link previews, showing only what you tick, "
                    + "as it is when you publish it (publish again to update it). Heart rate stays private unless you tick it."
            }
            for share in shares {
                Node.el("p", ["class": "share-link", "data-share-token": share.token]) {
                    Node.el("a", ["href": url(reviewSharePath(share))]) { absoluteURL(reviewSharePath(share), request) }
                    Node.el("span", ["class": "muted small"]) {
                        " · shows " + ReviewSection.allCases.filter(share.sections.contains).map(sectionName).joined(separator: ", ")
                    }
                    if let at = share.snapshot?.takenAt {
                        Node.el("span", ["class": "muted small"]) { " · as of " + format.day(localTime.day(of: at)) }
                    }
                    if mayWrite {
                        // A share shows the history as it was when published: again, to show it as it is now.
                        Node.el("form", ["method": "post", "action": url("/review"), "class": "inline"]) {
                            Node.el("input", ["type": "hidden", "name": "action", "value": "republish"])
                            Node.el("input", ["type": "hidden", "name": "token", "value": share.token])
                            Node.el("input", ["type": "hidden", "name": "back", "value": back])
                            Node.el("button", ["type": "submit", "class": "secondary", "data-republish": share.token]) { "Publish again" }
                        }
                        Node.el("form", ["method": "post", "action": url("/review"), "class": "inline"]) {
                            Node.el("input", ["type": "hidden", "name": "action", "value": "withdraw"])
                            Node.el("input", ["type": "hidden", "name": "token", "value": share.token])
                            Node.el("input", ["type": "hidden", "name": "back", "value": back])
                            Node.el("button", ["type": "submit", "class": "secondary", "data-withdraw": share.token]) { "Withdraw" }
                        }
                    }
                }
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/review"), "class": "publish"]) {
                    Node.el("input", ["type": "hidden", "name": "action", "value": "publish"])
                    Node.el("input", ["type": "hidden", "name": "from", "value": period.from])
                    Node.el("input", ["type": "hidden", "name": "to", "value": period.end])
                    Node.el("input", ["type": "hidden", "name": "back", "value": back])
                    Node.el("fieldset") {
                        Node.el("legend") { "Show" }
                        for section in ReviewSection.allCases {
                            Node.el("label", ["class": "check"]) {
                                Node.el("input", ["type": "checkbox", "name": "show", "value": section.rawValue,
                                                  "checked": ReviewSection.defaults.contains(section) ? "" : nil])
                                " " + sectionName(section)
                            }
                        }
                    }
                    Node.el("button", ["type": "submit", "data-publish": ""]) { "Publish" }
                }
            } else {
                Node.el("p", ["class": "muted small"]) { "Log in to publish this review." }
            }
        }
    }

    func sectionName(_ s: ReviewSection) -> String {
        switch s {
        case .totals: "totals"
        case .tracks: "top songs"
        case .artists: "top artists"
        case .albums: "top albums"
        case .discoveries: "discoveries"
        case .highlights: "highlights"
        case .clock: "listening clock"
        case .songsOfTheDay: "songs of the day"
        case .heartRate: "heart rate"
        }
    }

    /// `POST /review`: publish a share (`from`, `to`, the ticked `show`s) or withdraw one (`token`).
    func reviewForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let back = Self.localPath(Self.formField("back", in: request.body) ?? "/review")
        switch Self.formField("action", in: request.body) {
        case "withdraw":
            try context.operations.withdrawReview(token: Self.formField("token", in: request.body) ?? "")
        case "republish":
            _ = try republish(Self.formField("token", in: request.body) ?? "")
        default:
            guard let from = Self.formField("from", in: request.body), let to = Self.formField("to", in: request.body) else {
                throw APIError.badRequest("the period is missing", code: "invalid_range")
            }
            let sections: Set<ReviewSection>
            switch ReviewSection.parse(Self.formValues("show", in: request.body)) {
            case .success(let set): sections = set
            case .failure(let error): throw APIError.badRequest("'\(error.name)' is not a part of the review", code: "invalid_sections")
            }
            let snapshot = try reviewSnapshot(from: from, to: to, sections: sections)
            _ = try context.operations.publishReview(from: from, to: to, sections: sections, snapshot: snapshot)
        }
        return HTTPResponse(status: 303, headers: [("Location", url(back)), ("Cache-Control", "no-store")])
    }

    /// Every value of a form field (checkboxes send one per ticked box).
    static func formValues(_ name: String, in body: [UInt8]) -> [String] {
        String(decoding: body, as: UTF8.self).split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return parts.count == 2 && parts[0] == name ? parts[1] : nil
        }
    }

    /// The dashboard's offer of the year's review: from 1 December this year's (so far), and
    /// through January last year's (final once 31 December has ended here).
    func reviewOffer(today: String) -> Node {
        guard let year = Int(today.prefix(4)) else { return .empty }
        let month = today.dropFirst(5).prefix(2)
        let offered = month == "12" ? year : month == "01" ? year - 1 : nil
        guard let offered else { return .empty }
        return .el("section", ["class": "card review-offer", "aria-labelledby": "offer-h", "data-review-offer": String(offered)]) {
            Node.el("h2", ["id": "offer-h"]) { "Your \(offered) in music" }
            Node.el("p", ["class": "muted small"]) {
                offered == year ? "The year so far: top songs, discoveries, comebacks and your heart rate." : "The whole year, final."
            }
            Node.el("a", ["href": url("/review/\(offered)")]) { "See the review →" }
        }
    }
}
