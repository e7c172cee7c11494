import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    /// `GET /api/v1/artists/{id}`: an artist's plays over time, top tracks (those they are
    /// featured on marked so), albums, first and last play, listening time and the zones
    /// their songs were played in.
    func artistJSON(_ id: Int64) throws -> JSONValue {
        guard let artist = try context.store.artist(id: id) else { throw APIError.notFound("there is no artist \(id)") }
        let summary = try context.store.artistSummary(id: id)
        let top = try context.store.topTracks(artistID: id, limit: 50)
        let albums = try context.store.albums(artistID: id, limit: 50)
        return .object([
            ("id", .int(artist.id)),
            ("name", .string(artist.name)),
            ("musicbrainz_artist_id", .optional(artist.mbid)),
        ] + APIJSON.summary(summary) + [
            ("top_tracks", .array(top.enumerated().map { i, e in
                .object([("rank", .int(Int64(i + 1))), ("track", APIJSON.track(e.track!)), ("featured", .bool(e.featured))]
                        + APIJSON.counts(e))
            })),
            ("albums", .array(albums.map { e in
                .object([("id", .optional(e.albumID)), ("title", .optional(e.album)), ("artist", .optional(e.artist))] + APIJSON.counts(e))
            })),
        ])
    }

    /// `GET /api/v1/albums/{id}`: an album's tracks in order with their plays, and the same
    /// figures as an artist's.
    func albumJSON(_ id: Int64) throws -> JSONValue {
        guard let album = try context.store.album(id: id) else { throw APIError.notFound("there is no album \(id)") }
        let summary = try context.store.albumSummary(id: id)
        let tracks = try context.store.albumTracks(albumID: id)
        return .object([
            ("id", .int(album.id)),
            ("title", .string(album.title)),
            ("artist", .optional(album.artist)),
            ("artist_id", .optional(album.artistID)),
            ("musicbrainz_release_id", .optional(album.release)),
        ] + APIJSON.summary(summary) + [
            ("tracks", .array(tracks.map { e in .object([("track", APIJSON.track(e.track!))] + APIJSON.counts(e)) })),
        ])
    }
}

extension APIJSON {
    /// A chart row's counted plays and listening time.
    static func counts(_ e: ChartEntry) -> [(String, JSONValue)] {
        [("plays", .int(Int64(e.plays))), ("listening_s", .double(e.seconds.rounded()))]
    }

    /// The figures of a track's, an artist's or an album's page.
    static func summary(_ s: TrackSummary) -> [(String, JSONValue)] {
        [
            ("plays", .int(Int64(s.plays))),
            ("skips", .int(Int64(s.skips))),
            ("listening_s", .double(s.seconds.rounded())),
            ("first_played", timestamp(s.firstPlayed)),
            ("last_played", timestamp(s.lastPlayed)),
            ("months", .array(s.months.map { .object([("month", .string($0.month)), ("plays", .int(Int64($0.plays)))]) })),
            ("zones", .array(s.zones.enumerated().map { .object([("zone", .int(Int64($0.offset))), ("plays", .int(Int64($0.element)))]) })),
        ]
    }
}
