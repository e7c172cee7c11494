import Foundation
import PacenoteCore
import PacenoteStore

/// `/artists/ID`, `/albums/ID`, and `/artist?name=`, the address artist pages had before
/// artists had ids.
extension API {
    /// `/artist?name=…` redirects (301) to the artist of that name, or — for credit text
    /// such as `A feat. B` or `A & B`, as older links and the history's artist column
    /// carry — to its primary artist's page (`Store.artist(creditedAs:)`).
    func artistRedirect(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let name = request.query["name"], !name.isEmpty, name.count <= 500 else {
            throw APIError.badRequest("which artist? (/artist?name=…)", code: "invalid_name")
        }
        guard let artist = try context.store.artist(creditedAs: name) else {
            throw APIError.notFound("Nothing by \(name) was played.")
        }
        return HTTPResponse(status: 301, headers: [("Location", url("/artists/\(artist.id)")), ("Cache-Control", "no-store")])
    }

    func artistPage(_ id: Int64, _ request: HTTPRequest, mayWrite: Bool = false) throws -> HTTPResponse {
        guard let artist = try context.store.artist(id: id) else { throw APIError.notFound("There is no artist \(id).") }
        // A merged artist is an alias: its old address leads to the one it was merged into.
        if let kept = artist.mergedInto {
            return HTTPResponse(status: 301, headers: [("Location", url("/artists/\(kept)")), ("Cache-Control", "no-store")])
        }
        let summary = try context.store.artistSummary(id: id)
        let top = try context.store.topTracks(artistID: id, limit: 20)
        let albums = try context.store.albums(artistID: id, limit: 20)
        return html(title: artist.name, request: request, nav: "history") {
            Node.el("h1", ["data-artist-id": String(id)]) { artist.name }
            queueButtons("artist", id, mayWrite: mayWrite, back: pageAddress(request))
            summaryFacts(summary, extra: artist.mbid.map { [("MusicBrainz artist", $0)] } ?? [])
            playsOverTime(summary, what: artist.name)
            zonePlays(summary, what: artist.name)
            chartList("Most played", top) { e in
                [e.track.map(trackLink) ?? .empty,
                 e.featured ? Node.el("span", ["class": "badge", "data-featured": ""]) { "featured" } : .empty,
                 queueButtons("track", e.track?.id, mayWrite: mayWrite, back: pageAddress(request), compact: true)]
            }
            if !albums.isEmpty {
                chartList("Albums", albums) { e in [albumLink(e.album, id: e.albumID)] }
            }
        }
    }

    func albumPage(_ id: Int64, _ request: HTTPRequest, mayWrite: Bool = false) throws -> HTTPResponse {
        guard let album = try context.store.album(id: id) else { throw APIError.notFound("There is no album \(id).") }
        if let kept = album.mergedInto {
            return HTTPResponse(status: 301, headers: [("Location", url("/albums/\(kept)")), ("Cache-Control", "no-store")])
        }
        let summary = try context.store.albumSummary(id: id)
        let tracks = try context.store.albumTracks(albumID: id)
        return html(title: album.title, request: request, nav: "history") {
            Node.el("div", ["class": "np"]) {
                Node.el("img", ["class": "cover", "src": coverURL(tracks.first?.track), "alt": "", "width": "120", "height": "120"])
                Node.el("div") {
                    Node.el("h1", ["data-album-id": String(id)]) { album.title }
                    Node.el("p") { artistLink(album.artist, id: album.artistID) }
                    queueButtons("album", id, mayWrite: mayWrite, back: pageAddress(request))
                }
            }
            summaryFacts(summary, extra: album.release.map { [("MusicBrainz release", $0)] } ?? [])
            playsOverTime(summary, what: album.title)
            zonePlays(summary, what: album.title)
            Node.el("section", ["class": "card"]) {
                Node.el("h2") { "Tracks" }
                Node.el("ol", ["class": "chart-list"]) {
                    for e in tracks {
                        Node.el("li") {
                            e.track.map(trackLink) ?? .empty
                            if let by = e.track?.artist, by != album.artist { Node.el("span", ["class": "by"]) { " — \(by)" } }
                            Node.el("span", ["class": "count"]) { SiteFormat.plural(e.plays, "play") }
                            queueButtons("track", e.track?.id, mayWrite: mayWrite, back: pageAddress(request), compact: true)
                        }
                    }
                }
            }
        }
    }

    /// Counted plays in each heart-rate zone, when any play had heart rate.
    func zonePlays(_ s: TrackSummary, what: String) -> Node {
        guard s.zones.contains(where: { $0 > 0 }) else { return .empty }
        let rows = s.zones.enumerated().map { zone, plays in
            Chart.Bar(label: "Z\(zone)", value: Double(plays), tooltip: "Zone \(zone): \(SiteFormat.plural(plays, "play"))",
                      className: "bar z\(zone)")
        }
        return .el("section", ["class": "card", "aria-labelledby": "zones-h"]) {
            Node.el("h2", ["id": "zones-h"]) { "Heart-rate zones" }
            Chart.rows(id: "zones", rows, title: "Plays of \(what) in each heart-rate zone",
                       desc: rows.map { "\($0.label) \(Int($0.value))" }.joined(separator: ", "),
                       valueText: { SiteFormat.plural(Int($0), "play") })
        }
    }
}
