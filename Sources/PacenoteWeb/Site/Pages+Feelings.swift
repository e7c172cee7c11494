import Foundation
import PacenoteCore
import PacenoteStore

/// The heart: like, dislike or clear a track from the track page, the history rows and
/// each "Up next" suggestion, and "not now" on a suggestion. Small forms that post to
/// `/tracks/ID` with the page's session (same origin, like the song-of-the-day pin) and
/// come back to the page they were on; no script.
extension API {
    /// The control for a track with its current feeling: a form when the visitor may
    /// write, else only a mark when it is liked or disliked.
    func heart(_ trackID: Int64?, _ feeling: Feeling, mayWrite: Bool, back: String, notNow: Bool = false) -> Node {
        guard let trackID else { return .empty }
        guard mayWrite else {
            switch feeling {
            case .like: return .el("span", ["class": "feeling liked", "title": "Liked"]) { "♥" }
            case .dislike: return .el("span", ["class": "feeling disliked", "title": "Disliked"]) { "✕" }
            case .none: return .empty
            }
        }
        return .el("form", ["method": "post", "action": url("/tracks/\(trackID)"), "class": "feeling",
                            "data-feeling": feeling.rawValue]) {
            Node.el("input", ["type": "hidden", "name": "back", "value": back])
            Node.el("button", ["type": "submit", "name": "feeling", "value": feeling == .like ? "none" : "like",
                               "aria-pressed": feeling == .like ? "true" : "false", "title": feeling == .like ? "Liked: clear" : "Like"]) {
                feeling == .like ? "♥" : "♡"
            }
            Node.el("button", ["type": "submit", "name": "feeling", "value": feeling == .dislike ? "none" : "dislike",
                               "aria-pressed": feeling == .dislike ? "true" : "false",
                               "title": feeling == .dislike ? "Disliked: clear" : "Dislike (never suggested)"]) { "✕" }
            if notNow {
                Node.el("button", ["type": "submit", "name": "not_now", "value": "1", "title": "Not now: suggest it less for a while"]) {
                    "Not now"
                }
            }
        }
    }

    /// The page's own address (below the base path), for a form's way back.
    func pageAddress(_ request: HTTPRequest) -> String {
        let query = request.query.sorted { $0.key < $1.key }.map { "\(URLText.component($0.key))=\(URLText.component($0.value))" }
        return request.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// `POST /tracks/ID` with `feeling` (like, dislike, none) or `not_now`, then back to
    /// `back` (a path of this site) or the track page.
    func trackFeelingForm(_ id: Int64, _ request: HTTPRequest) throws -> HTTPResponse {
        if Self.formField("not_now", in: request.body) != nil {
            guard let recommender = context.recommender else { throw APIError.unavailable("the recommender is not running") }
            try recommender.notNow(trackID: id)
        } else {
            guard let text = Self.formField("feeling", in: request.body), let feeling = Feeling(rawValue: text) else {
                throw APIError.badRequest("feeling: like, dislike or none", code: "invalid_feeling")
            }
            try context.operations.setFeeling(trackID: id, feeling, source: "site")
        }
        var back = Self.formField("back", in: request.body) ?? ""
        // Only a path of this site: never another host (`//evil`, `/\evil`).
        if !back.hasPrefix("/") || back.hasPrefix("//") || back.contains("\\") || back.count > 2000 { back = "/tracks/\(id)" }
        return HTTPResponse(status: 303, headers: [("Location", url(back)), ("Cache-Control", "no-store")])
    }

    /// Whether a `POST /tracks/ID` is the heart's (else it sets the tempo).
    static func isFeelingForm(_ request: HTTPRequest) -> Bool {
        formField("feeling", in: request.body) != nil || formField("not_now", in: request.body) != nil
    }
}
