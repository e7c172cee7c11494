import Foundation

/// What a published review shows strangers, fixed when it is published (issue 51, point 3):
/// the page's text and content and the card's picture, not the live history. A share read
/// from the history on every request moved a second after each play (anyone holding the
/// link could follow the owner's listening) and cost 40–80 ms of drawing per card request.
/// Publishing again takes a new snapshot.
public struct ReviewSnapshot: Equatable, Sendable {
    /// The page's title and the line under it ("So far: up to …"), as when published.
    public var title: String
    public var status: String
    /// The link preview's text (`og:description`).
    public var description: String
    /// The page's content as rendered when published (HTML, escaped then).
    public var content: [UInt8]
    /// The card (`card.png`), drawn once.
    public var card: [UInt8]
    public var takenAt: Date

    public init(title: String, status: String, description: String, content: [UInt8], card: [UInt8], takenAt: Date) {
        self.title = title
        self.status = status
        self.description = description
        self.content = content
        self.card = card
        self.takenAt = takenAt
    }

    /// The report with only what a share may show: never the period before (a "+40100 %"
    /// gives its totals away, and they were not published), and heart rate only when ticked.
    public static func publishable(_ report: ReviewReport, sections: Set<ReviewSection>) -> ReviewReport {
        var r = report
        r.previous = nil
        if !sections.contains(.heartRate) { r.heartRate = nil }
        return r
    }
}
