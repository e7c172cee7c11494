import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// Artists and albums as entities (issue 17, point 2): which spellings are one, which
/// albums stay apart, ids that survive re-splitting and re-tagging, and charts by entity
/// equal to their recomputation from the plays.
@Suite struct EntityStoreTests {
    static func open() throws -> (TemporaryDirectory, Store) {
        let dir = try TemporaryDirectory()
        return (dir, try Store.open(path: dir.file("p.sqlite"), timeZone: zone))
    }

    static let all = ("0000-01-01", "9999-12-31")

    @Test func twoGreatestHitsStayApartAndAnAlbumWithGuestsStaysOne() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let queen = try CreditStoreTests.play(store, Track(uri: "q/1.flac", title: "Bohemian Rhapsody", artist: "Queen",
                                                           album: "Greatest Hits", albumArtist: "Queen"), at: 1_700_000_000)
        let abba = try CreditStoreTests.play(store, Track(uri: "a/1.flac", title: "Waterloo", artist: "ABBA",
                                                          album: "Greatest Hits", albumArtist: "ABBA"), at: 1_700_000_500)
        // No album artist: the album goes by the primary artist, so a guest does not split it.
        let plain = try CreditStoreTests.play(store, Track(title: "One", artist: "Band", album: "Record"), at: 1_700_001_000)
        let guest = try CreditStoreTests.play(store, Track(title: "Two", artist: "Band feat. Guest", album: "record"), at: 1_700_001_500)
        // Two releases of one title by one artist: the release ids keep them apart, and decide
        // over spelling.
        let r1 = try CreditStoreTests.play(store, Track(uri: "l/1.flac", title: "Live", artist: "Band", album: "Live",
                                                        musicBrainz: MusicBrainzIDs(release: "rel-1")), at: 1_700_002_000)
        let r2 = try CreditStoreTests.play(store, Track(uri: "l/2.flac", title: "Live", artist: "Band", album: "Live",
                                                        musicBrainz: MusicBrainzIDs(release: "rel-2")), at: 1_700_002_500)
        let r1b = try CreditStoreTests.play(store, Track(uri: "l/3.flac", title: "Encore", artist: "Band", album: "Live!",
                                                         musicBrainz: MusicBrainzIDs(release: "rel-1")), at: 1_700_003_000)
        func album(_ track: Int64) throws -> Int64? { try store.track(id: track)?.albumID }
        #expect(try album(queen) != nil && album(queen) != album(abba))
        #expect(try album(plain) != nil && album(plain) == album(guest))
        #expect(try album(r1) != album(r2) && album(r1) == album(r1b))

        let plainAlbum = try #require(try album(plain))
        let chart = try store.topAlbums(fromDay: Self.all.0, toDay: Self.all.1, limit: 10)
        #expect(chart.count == 5)
        #expect(Set(chart.compactMap(\.albumID)).count == 5)
        #expect(chart.first { $0.albumID == plainAlbum }?.plays == 2)
        #expect(chart.filter { $0.album == "Greatest Hits" }.compactMap(\.artist).sorted() == ["ABBA", "Queen"])
        let record = try #require(try store.album(id: plainAlbum))
        let bandID = try store.artist(named: "Band")?.id
        #expect(record.title == "Record" && record.artist == "Band" && record.artistID == bandID)
        #expect(try store.albumTracks(albumID: record.id).map(\.track?.title) == ["One", "Two"])
        #expect(try store.albumSummary(id: record.id).plays == 2)
        // The Band's albums from its page: Record, both Lives.
        let band = try #require(try store.artist(named: "band"))
        #expect(Set(try store.albums(artistID: band.id, limit: 10).compactMap(\.albumID)).count == 3)
    }

    @Test func aRetaggedFileMovesToItsNewAlbum() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let id = try CreditStoreTests.play(store, Track(uri: "x.flac", title: "Song", artist: "A", album: "Old"), at: 1_700_000_000)
        let old = try #require(try store.track(id: id)?.albumID)
        #expect(try store.saveTrack(Track(uri: "x.flac", title: "Song", artist: "A", album: "New")) == id)
        let new = try #require(try store.track(id: id)?.albumID)
        #expect(new != old)
        #expect(try store.topAlbums(fromDay: Self.all.0, toDay: Self.all.1, limit: 10).map(\.albumID) == [new])
        #expect(try store.albumTracks(albumID: old).isEmpty)
        // Untagged: no album.
        _ = try store.saveTrack(Track(uri: "x.flac", title: "Song", artist: "A"))
        #expect(try store.track(id: id)?.albumID == nil)
    }

    @Test func artistsAreNamesWithCaseFoldedAndKeepTheirIDs() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        _ = try CreditStoreTests.play(store, Track(title: "Around the World", artist: "Daft Punk"), at: 1_700_000_000)
        _ = try CreditStoreTests.play(store, Track(title: "Da Funk", artist: "DAFT  PUNK",
                                                   musicBrainz: MusicBrainzIDs(artist: "056e4f3e")), at: 1_700_000_500)
        _ = try CreditStoreTests.play(store, Track(title: "Halo", artist: "Beyoncé"), at: 1_700_001_000)
        _ = try CreditStoreTests.play(store, Track(title: "Halo ", artist: "Beyonce"), at: 1_700_001_500)
        let daft = try #require(try store.artist(named: "daft punk"))
        #expect(daft.name == "Daft Punk" && daft.mbid == "056e4f3e")  // first spelling kept, the id filled in
        #expect(try store.artistSummary(id: daft.id).plays == 2)
        // Credit text finds its artist: the name, else the primary artist, else the first
        // credited artist of a track with that text.
        _ = try CreditStoreTests.play(store, SongInfo(uri: "duet.flac", tags: ["Artist": "Ana", "Title": "Duet"],
                                                      multiTags: ["Artist": ["Ana", "Ben"]]).track, at: 1_699_000_000)
        #expect(try store.artist(creditedAs: "DAFT PUNK")?.id == daft.id)
        #expect(try store.artist(creditedAs: "Daft Punk feat. Someone Else")?.id == daft.id)
        #expect(try store.artist(creditedAs: "Ana & Ben")?.name == "Ana")
        #expect(try store.artist(creditedAs: "Nobody") == nil)
        // Two spellings of one name on one track are one credit: the play counts once.
        let twice = try CreditStoreTests.play(store, Track(title: "Echo", artist: "Daft Punk",
                                                            listedCredit: ArtistCredit(listed: ["Daft Punk", "daft\u{A0}punk"])), at: 1_699_500_000)
        #expect(try store.creditWithArtistIDs(trackID: twice).map(\.id) == [daft.id])
        #expect(try store.topArtists(fromDay: Self.all.0, toDay: Self.all.1, limit: 10).first { $0.artistID == daft.id }?.plays == 3)
        // A bulk import's listed artists (Maloja's) name the album's artist as the one-by-one path does.
        let maloja = ImportedListen(track: Track(title: "Pair", artist: "Ana, Ben", album: "Pairs"), startedAtMs: 1_698_000_000_000,
                                    playedSeconds: 100, artists: ["Ana", "Ben"])
        #expect(try ListenImportSession(store: store, source: "import:maloja").insert([maloja]).imported == 1)
        let pair = try #require(try store.recentPlays(limit: 100).first { $0.track.title == "Pair" })
        #expect(try store.album(id: try #require(pair.track.albumID))?.artist == "Ana")
        // Accents are kept apart until a merge says otherwise.
        #expect(try store.artist(named: "Beyonce")?.id != store.artist(named: "Beyoncé")?.id)

        // A change of separators: the old credit's artist keeps its id, the new names get theirs,
        // and going back finds the same ids again. The album does not move.
        let boxer = try CreditStoreTests.play(store, Track(title: "The Boxer", artist: "Simon & Garfunkel", album: "Bridge"), at: 1_700_002_000)
        let duo = try #require(try store.artist(named: "Simon & Garfunkel"))
        let albumBefore = try store.track(id: boxer)?.albumID
        _ = try store.applyCreditSeparators(["&"])
        let simon = try #require(try store.artist(named: "Simon"))
        #expect(try store.creditWithArtistIDs(trackID: boxer).map(\.id) == [simon.id, try store.artist(named: "Garfunkel")?.id])
        #expect(try store.artistSummary(id: duo.id).plays == 0)
        #expect(try store.track(id: boxer)?.albumID == albumBefore)
        _ = try store.applyCreditSeparators([])
        #expect(try store.creditWithArtistIDs(trackID: boxer).map(\.id) == [duo.id])
        #expect(try store.artist(named: "Simon")?.id == simon.id)
        #expect(try store.artistSummary(id: duo.id).plays == 1)
    }

    /// Top artists and albums for a range, recomputed from the plays, credits and tracks
    /// alone (no rollup): entity id → counted plays.
    static func recomputed(_ store: Store, _ group: String, from: String, to: String) throws -> [Int64: Int] {
        try store.read { db in
            let join = group == "artist" ? "JOIN track_artists a ON a.track_id = p.track_id" : "JOIN tracks t ON t.id = p.track_id"
            let key = group == "artist" ? "a.artist_id" : "t.album_id"
            var out: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT \(key), SUM(p.counted) FROM plays p \(join)
                WHERE p.local_day BETWEEN ? AND ? AND \(key) IS NOT NULL GROUP BY \(key) HAVING SUM(p.counted) > 0
                """, arguments: [from, to]) { out[row[0]] = row[1] }
            return out
        }
    }

    static func charts(_ store: Store, from: String, to: String) throws -> (artists: [Int64: Int], albums: [Int64: Int]) {
        let artists = try store.topArtists(fromDay: from, toDay: to, limit: 10_000)
        let albums = try store.topAlbums(fromDay: from, toDay: to, limit: 10_000)
        return (Dictionary(uniqueKeysWithValues: artists.map { ($0.artistID!, $0.plays) }),
                Dictionary(uniqueKeysWithValues: albums.map { ($0.albumID!, $0.plays) }))
    }

    @Test func chartsByEntityEqualTheirRecomputationAfterImportsMPDPlaysAndDeletes() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let listens = ImportStoreTests.listens(count: 2000, seed: 7)
        // The first plays through the one-by-one path, the rest through the bulk import.
        try ImportStoreTests.storeOneByOne(listens.prefix(300), in: store)
        #expect(try ListenImportSession(store: store, source: "import:test").insert(Array(listens.dropFirst(300))).imported == 1700)
        // MPD files with two artists and an album artist, and a delete.
        let song = SongInfo(uri: "two.flac", tags: ["Artist": "Artist 1", "AlbumArtist": "Artist 1", "Album": "Album", "Title": "Two"],
                            multiTags: ["Artist": ["Artist 1", "Newcomer"]])
        _ = try CreditStoreTests.play(store, song.track, at: 1_712_000_000)
        let gone = try store.recentPlays(limit: 5).last!
        #expect(try store.deletePlay(id: try #require(gone.play.id)) != nil)

        for (from, to) in [Self.all, ("2024-01-01", "2024-12-31"), ("2024-03-30", "2024-04-02"), ("2024-04-01", "2024-04-01"),
                           ("2024-04-01", "2024-04-30"), ("2024-03-31", "2024-05-03")] {
            let charts = try Self.charts(store, from: from, to: to)
            #expect(charts.artists == (try Self.recomputed(store, "artist", from: from, to: to)), "\(from)–\(to)")
            #expect(charts.albums == (try Self.recomputed(store, "album", from: from, to: to)), "\(from)–\(to)")
            #expect(!charts.artists.isEmpty && !charts.albums.isEmpty)
        }
        // Every credit has its artist and every track with an album its album, whichever path wrote them.
        let unfiled = try store.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM track_artists WHERE artist_id IS NULL)
                     + (SELECT COUNT(*) FROM tracks WHERE album IS NOT NULL AND album_id IS NULL)
                """)
        }
        #expect(unfiled == 0)
        // The bulk path and the one-by-one path file the same names under the same entities:
        // one "Album" by "Artist 1" whichever way its tracks came in.
        let albums = try store.topAlbums(fromDay: Self.all.0, toDay: Self.all.1, limit: 100)
        #expect(albums.filter { $0.album == "Album" && $0.artist == "Artist 1" }.count == 1)
    }
}

/// A database that stopped at v4 (credits only from v2's importer, a mirrored library)
/// upgraded by v5 and v6.
@Suite struct CreditMigrationTests {
    @Test func oldImportedCreditsAreCorrectedAndTheLibraryIsReadAgain() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v4.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v4.feelings")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (id, uri, title, artist, album, match_key, first_seen_at_ms, updated_at_ms) VALUES
                  (1, NULL, 'Duet', 'Ana, Ben', 'Pairs', 'k1', 0, 0),          -- Maloja listed Ana and Ben
                  (2, NULL, 'Boxer', 'Simon & Garfunkel', NULL, 'k2', 0, 0),  -- v2's parser split on '&'
                  (3, 'f.flac', 'File', 'Solo', 'Own', 'k3', 0, 0),           -- an MPD file, no credit yet
                  (4, NULL, 'Twice', 'Bo, bo', NULL, 'k4', 0, 0);             -- one artist listed in two spellings
                INSERT INTO track_artists (track_id, position, name, role) VALUES
                  (1, 0, 'Ana', 'primary'), (1, 1, 'Ben', 'featured'),
                  (2, 0, 'Simon', 'primary'), (2, 1, 'Garfunkel', 'featured'),
                  (4, 0, 'Bo', 'primary'), (4, 1, 'bo', 'featured');
                INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
                  VALUES (4, 1700000000000, 1700000100000, 100, 1, 'import:maloja', '2023-11-14', 22);
                INSERT INTO library_files (player, track_id, modified_at_ms) VALUES ('default', 3, 1700000000000);
                INSERT INTO meta (key, value) VALUES ('library_update:default', '1700000000');
                """)
        }
        try queue.close()
        let store = try Store.open(path: path, timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        #expect(try store.credit(trackID: 1) == ArtistCredit(listed: ["Ana", "Ben"]))
        #expect(try store.credit(trackID: 2) == ArtistCredit(primary: "Simon & Garfunkel"))
        #expect(try store.credit(trackID: 3) == ArtistCredit(primary: "Solo"))
        // Maloja's first listed artist names the album; every credit has its artist.
        #expect(try store.album(id: try #require(try store.track(id: 1)?.albumID))?.artist == "Ana")
        #expect(try store.creditWithArtistIDs(trackID: 1).allSatisfy { $0.id != nil })
        // Two spellings of one artist are one credit, and the play counts once for it.
        let bo = try #require(try store.artist(named: "Bo"))
        #expect(try store.creditWithArtistIDs(trackID: 4).map(\.id) == [bo.id])
        #expect(try store.artistSummary(id: bo.id).plays == 1)
        #expect(try store.topArtists(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 10).first { $0.artistID == bo.id }?.plays == 1)
        try EntityRollupTests.expectExact(store, "after the migrations")
        // The mirror reads every file again (its several Artist tags are read from v5 on).
        #expect(try store.libraryIndex(player: "default") == ["f.flac": -1])
        #expect(try store.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'library_update:default'") } == nil)
    }
}

/// A database at v7 (plays over several months and years) upgraded by v8: its month rollups
/// are summed from what v7 kept, and the triggers v8 creates again keep them from then on.
@Suite struct MonthRollupMigrationTests {
    @Test func aV7DatabaseGetsItsMonthsAndKeepsThem() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v7.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v7.entity-rollups")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO artists (id, name, name_key, created_at_ms) VALUES (1, 'Ana', 'ana', 0), (2, 'Ben', 'ben', 0);
                INSERT INTO albums (id, title, artist, album_key, created_at_ms) VALUES (1, 'Pairs', 'Ana', 'pairs|ana', 0);
                INSERT INTO tracks (id, uri, title, artist, album, match_key, first_seen_at_ms, updated_at_ms, album_id) VALUES
                  (1, NULL, 'One', 'Ana', 'Pairs', 'k1', 0, 0, 1), (2, NULL, 'Two', 'Ana & Ben', NULL, 'k2', 0, 0, NULL);
                INSERT INTO track_artists (track_id, position, name, role, artist_id) VALUES
                  (1, 0, 'Ana', 'primary', 1), (2, 0, 'Ana', 'primary', 1), (2, 1, 'Ben', 'featured', 2);
                INSERT INTO meta (key, value) VALUES ('rollup_timezone', 'Europe/Berlin');
                """)
            // Plays from December 2023 to February 2024, some skipped.
            for i in 0..<120 {
                let at = Int64(1_701_388_800_000) + Int64(i) * 64_800_000
                let day = LocalTime(timeZone: zone).day(of: Date(timeIntervalSince1970: Double(at) / 1000))
                try db.execute(sql: """
                    INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
                    VALUES (?, ?, ?, ?, ?, 'mpd', ?, ?)
                    """, arguments: [i % 3 == 0 ? 2 : 1, at, at + 200_000, 100.5 + Double(i), i % 5 == 0 ? 0 : 1, day, i % 24])
            }
        }
        try queue.close()
        let store = try Store.open(path: path, timeZone: zone)
        defer { try? store.close() }
        try EntityRollupTests.expectExact(store, "after v8")
        let months = try store.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT month FROM rollup_month_track ORDER BY 1") }
        #expect(months == ["2023-12", "2024-01", "2024-02"])
        // The triggers v8 created again keep the months too.
        _ = try CreditStoreTests.play(store, Track(title: "Three", artist: "Ben"), at: 1_706_000_000)
        #expect(try store.deletePlay(id: try #require(try store.recentPlays(limit: 3).last?.play.id)) != nil)
        try EntityRollupTests.expectExact(store, "plays after v8")
        let january = try store.topArtists(fromDay: "2024-01-01", toDay: "2024-01-31", limit: 5)
        #expect(january.map(\.artist) == ["Ana", "Ben"])
    }
}

/// v20 sums each month row's first half from what v19 kept; the triggers it creates again
/// keep them as plays come, go and move between the halves of their month.
@Suite struct MonthHalvesMigrationTests {
    @Test func aV19DatabaseGetsItsMonthsHalvesAndKeepsThem() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v19.sqlite")
        try RankingHeadsTests.v17Database(path)
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v19.track-source-check")
        try queue.close()
        let store = try Store.open(path: path, timeZone: zone)
        defer { try? store.close() }
        try EntityRollupTests.expectExact(store, "after v20")
        let split = try store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_month_artist WHERE first_half_plays > 0 AND first_half_plays < plays")
        }
        #expect(split ?? 0 > 0)
        // A play moved from the 1st to the 20th of its month, one from the 25th to the 5th,
        // a day's plays deleted: the update and delete triggers move them between the halves.
        try store.write { db in
            try db.execute(sql: """
                UPDATE plays SET local_day = substr(local_day, 1, 8) || '20' WHERE id = (SELECT MIN(id) FROM plays WHERE substr(local_day, 9) = '01');
                UPDATE plays SET local_day = substr(local_day, 1, 8) || '05' WHERE id = (SELECT MIN(id) FROM plays WHERE substr(local_day, 9) > '24');
                DELETE FROM plays WHERE local_day = (SELECT MAX(local_day) FROM plays WHERE substr(local_day, 9) <= '15');
                """)
            #expect(db.changesCount > 0)
        }
        try EntityRollupTests.expectExact(store, "plays moved between halves")
    }
}

/// A range's run of a few days beside a long one at its other end is read as a list too
/// (`Store.ranked`): what it would sum would all be looked up in the long one's list.
@Suite struct MixedRunChartTests {
    @Test func aShortRunBesideALongOneIsAListAndItsChartsExact() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // Every day of March and April 2024, three plays a day of eight tracks (four
        // artists, two albums), lengths that tie and differ, one play in seven skipped.
        var n = 0
        for day in CivilDate.days(year: 2024, month: 3, day: 1)...CivilDate.days(year: 2024, month: 4, day: 30) {
            for k in 0..<3 {
                let track = (day * 5 + k * 3) % 8
                let at = Double(day) * 86_400 + Double(k) * 7_200 + 36_000
                let id = try store.saveTrack(Track(title: "Song \(track)", artist: "Artist \(track % 4)", album: track < 4 ? "First" : "Second"))
                n += 1
                _ = try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: at),
                                              endedAt: Date(timeIntervalSince1970: at + 300), playedSeconds: [180, 240.5, 300][(day + k) % 3],
                                              counted: n % 7 != 0, source: "mpd"))
            }
        }
        // With runs of at most 4 plays summed whole and short ones up to 32: 24 March days
        // are a list, 6 April days short (18 plays) but beside them; and the other way round.
        try Store.$edgeDaysSummedWhole.withValue(4) {
            try EntityRollupTests.expectChartsExact(store, "short beside long",
                                                    ranges: [("2024-03-08", "2024-04-06"), ("2024-03-27", "2024-04-25"), ("2024-03-29", "2024-04-03")])
        }
        try EntityRollupTests.expectExact(store, "two months of plays")
    }

    /// Two tracks with one play each in 17-31 May, both 183.217 s: one's is read as May's
    /// second half less 16 May (183.21700000000004 in doubles, its other plays 251.113 and
    /// 240.5 s), the other's is its only play. They tie, and their names decide, whichever
    /// way each was summed.
    @Test func entriesTiedOnPlaysAndTimeTieWhicheverWayTheyWereSummed() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        func play(_ title: String, _ day: Int, month: Int = 5, _ seconds: Double) throws {
            let id = try store.saveTrack(Track(title: title, artist: "Artist " + title, album: "Album " + title))
            let at = Double(CivilDate.days(year: 2024, month: month, day: day)) * 86_400 + 43_200
            _ = try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: at),
                                          endedAt: Date(timeIntervalSince1970: at + seconds), playedSeconds: seconds,
                                          counted: true, source: "mpd"))
        }
        try play("Zed", 3, 251.113)
        try play("Zed", 16, 240.5)
        try play("Zed", 20, 183.217)
        try play("Alpha", 25, 183.217)
        try play("Other", 5, month: 6, 100)
        try play("Other", 20, month: 6, 100)
        for summedWhole in [0, 1_000] {
            try Store.$edgeDaysSummedWhole.withValue(summedWhole) {
                let chart = try store.topTracks(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 3)
                #expect(chart.map(\.track?.title) == ["Alpha", "Zed", "Other"], "\(summedWhole)")
                #expect(chart.map(\.seconds) == [183.217, 183.217, 100], "\(summedWhole)")
                let one = try store.topTracks(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 1)
                #expect(one.map(\.track?.title) == ["Alpha"], "\(summedWhole)")
            }
        }
        try EntityRollupTests.expectExact(store, "a tie read two ways")
    }
}

/// A range of days only read from the day rollups' heads (v21, `DayHeads`): exact, and the
/// heads are given up where they do not settle the chart.
@Suite struct DayHeadChartTests {
    /// `Store.ranked`'s chart of `from`…`to` with runs of at most `edge` plays summed whole,
    /// and how many of its statements read the day heads (SQLite's trace).
    static func ranked(_ store: Store, _ entity: Store.ChartEntity, _ from: String, _ to: String, limit: Int, edge: Int,
                       needsCount: Bool = false) throws -> (entries: [RankedSum.Entry], headReads: Int, counted: Int?) {
        try store.read { db in
            final class Reads: @unchecked Sendable {
                let lock = NSLock()
                var count = 0
            }
            let reads = Reads()
            db.trace { event in
                if case .statement(let statement) = event, statement.sql.contains("INDEXED BY rollup_day_") {
                    reads.lock.withLock { reads.count += 1 }
                }
            }
            defer { db.trace(options: []) }
            var counted: Int?
            let entries = try Store.ranked(entity, try #require(RangePieces.of(from: from, to: to)), limit: limit, order: .plays,
                                           edgeDaysSummedWhole: edge, budget: 2_000, needsCount: needsCount, counted: &counted, in: db)
            return (entries, reads.lock.withLock { reads.count }, counted)
        }
    }

    /// 28 March – 3 April 2024 (two runs, across March's end): five tracks played every day
    /// (8, 6, 5, 4 and 3 times), one played 27 times on 30 March and twice on 1 April (a day
    /// it is in no head of), one 3 times on 2 April, and a tail of 40 tracks played once;
    /// then a tail in late April, so that April's first days are a short run of their month.
    /// Without its look-up the sixth track would rank below the fourth daily one; with it, above.
    @Test func aWeekIsReadFromItsHeadsAndIsExact() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        var n = 0
        func play(_ title: String, artist: String, day: Int, times: Int, seconds: Double = 200) throws {
            let id = try store.saveTrack(Track(title: title, artist: artist, album: "Album " + title))
            for k in 0..<times {
                let at = Double(day) * 86_400 + 36_000 + Double(k) * 300 + Double(n % 7)
                n += 1
                _ = try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: at),
                                              endedAt: Date(timeIntervalSince1970: at + seconds), playedSeconds: seconds + Double(k % 3) * 0.125,
                                              counted: true, source: "mpd"))
            }
        }
        let first = CivilDate.days(year: 2024, month: 3, day: 28)
        for day in first..<(first + 7) {
            for (title, times) in [("A", 8), ("B", 6), ("C", 5), ("D", 4), ("E", 3)] {
                try play(title, artist: "Artist " + title, day: day, times: times)
            }
        }
        try play("F", artist: "Artist F", day: CivilDate.days(year: 2024, month: 3, day: 30), times: 27)
        try play("F", artist: "Artist F", day: CivilDate.days(year: 2024, month: 4, day: 1), times: 2)
        try play("G", artist: "Artist G", day: CivilDate.days(year: 2024, month: 4, day: 2), times: 3)
        for t in 0..<40 { try play("Tail \(t)", artist: "Tail artist \(t)", day: first + t % 7, times: 1) }
        for t in 0..<600 { try play("Late \(t % 30)", artist: "Late artist \(t % 30)", day: CivilDate.days(year: 2024, month: 4, day: 10 + t / 30), times: 1) }

        let runs = [RangePieces.DayRun(from: "2024-03-28", to: "2024-03-31"), RangePieces.DayRun(from: "2024-04-01", to: "2024-04-03")]
        for entity in [Store.ChartEntity.track, .artist, .album] {
            for limit in [1, 4, 5, 6] {
                let heads = try store.read { db in try Store.fromDayHeads(entity, runs, limit: limit, in: db) }
                let got = try #require(heads, "\(entity) \(limit): settled by the heads")
                #expect(got.map(\.plays) == Array([56, 42, 35, 29, 28, 21].prefix(limit)), "\(entity) \(limit)")
            }
            // The seventh in the heads is G, 3 plays: no more than an entry in no head could
            // have (2 a day), so it is not settled; an eighth is in no head at all.
            for limit in [7, 8] {
                #expect(try store.read { db in try Store.fromDayHeads(entity, runs, limit: limit, in: db) } == nil, "\(entity) \(limit)")
            }
        }
        // One day, 30 March: F's 27 plays and A's 8 are its best two.
        #expect(try store.read { db in try Store.fromDayHeads(.track, [RangePieces.DayRun(from: "2024-03-30", to: "2024-03-30")], limit: 2, in: db) }?
            .map(\.plays) == [27, 8])

        // Through `ranked`: the week's two runs are tiny (155 and 99 plays, at most 160) but
        // not together: its heads are read. Summed whole (at most 1,000) they are not.
        for entity in [Store.ChartEntity.track, .artist, .album] {
            let heads = try Self.ranked(store, entity, "2024-03-28", "2024-04-03", limit: 6, edge: 160)
            let whole = try Self.ranked(store, entity, "2024-03-28", "2024-04-03", limit: 6, edge: 1_000)
            #expect(heads.headReads > 0 && whole.headReads == 0, "\(entity)")
            #expect(heads.entries.map(\.plays) == [56, 42, 35, 29, 28, 21], "\(entity)")
            #expect(heads.entries == whole.entries, "\(entity)")
            // When the chart's length is wanted, the days are summed whole and counted.
            let counted = try Self.ranked(store, entity, "2024-03-28", "2024-04-03", limit: 6, edge: 160, needsCount: true)
            #expect(counted.headReads == 0 && counted.counted == 47 && counted.entries == whole.entries, "\(entity)")
            // 1-3 April alone (99 plays, under a third of April's 699): a short run, read from
            // its heads with runs of at most 40 summed whole; 6 asked is past what they settle
            // (G's 3 against 2 a day), and then the days are summed whole after them.
            let april = try Self.ranked(store, entity, "2024-04-01", "2024-04-03", limit: 5, edge: 40)
            #expect(april.headReads > 0 && april.entries.map(\.plays) == [24, 18, 15, 12, 9], "\(entity)")
            let deeper = try Self.ranked(store, entity, "2024-04-01", "2024-04-03", limit: 6, edge: 40)
            #expect(deeper.headReads > 0 && deeper.entries.map(\.plays) == [24, 18, 15, 12, 9, 3], "\(entity)")
        }
        // The public charts, every length and order, each way: summed whole, through the
        // heads (the week's runs with at most 160, April's first days with at most 40), and
        // as lists of their months (0): each equals the recomputation from the plays.
        let ranges = [("2024-03-28", "2024-04-03"), ("2024-03-30", "2024-03-30"), ("2024-04-01", "2024-04-02"),
                      ("2024-04-01", "2024-04-03"), ("2024-03-25", "2024-03-31")]
        for edge in [1_000, 160, 40, 0] {
            try Store.$edgeDaysSummedWhole.withValue(edge) { try EntityRollupTests.expectChartsExact(store, "a week, \(edge)", ranges: ranges) }
        }
        try Store.$edgeDaysSummedWhole.withValue(160) {
            let chart = try store.topTracks(fromDay: "2024-03-28", toDay: "2024-04-03", limit: 6)
            #expect(chart.map(\.track?.title) == ["A", "B", "C", "F", "D", "E"])
            #expect(chart.map(\.plays) == [56, 42, 35, 29, 28, 21])
            let counted = try store.countedChart(.track, fromDay: "2024-03-28", toDay: "2024-04-03", limit: 3)
            #expect(counted.total == 47 && counted.entries.map(\.plays) == [56, 42, 35])
        }
        try EntityRollupTests.expectExact(store, "a week of heads")
    }

    /// A large import sets the heads aside with the other ranking indexes and builds them
    /// when it ends: meanwhile a few days' charts do without them; after, the database is
    /// whole and they are read from the heads, exact.
    @Test func anImportKeepsTheHeads() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let listens = ImportStoreTests.listens(count: 3000)
        let session = ListenImportSession(store: store, source: "import:test")
        var imported = 0
        let run = [RangePieces.DayRun(from: "2024-04-03", to: "2024-04-06")]
        func names() throws -> [String] {
            try store.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'rollup\\_day\\_%\\_top' ESCAPE '\\' ORDER BY 1")
            }
        }
        for start in stride(from: 0, to: listens.count, by: 1000) {
            imported += try session.insert(Array(listens[start..<min(start + 1000, listens.count)])).imported
            #expect(try names().isEmpty, "set aside while the import writes")
            #expect(try store.read { db in try Store.fromDayHeads(.track, run, limit: 1, in: db) } == nil)
            try Store.$edgeDaysSummedWhole.withValue(100) {
                try EntityRollupTests.expectChartsExact(store, "days while the heads are set aside", ranges: [("2024-04-03", "2024-04-06")])
            }
        }
        session.finish()
        #expect(imported == 3000)
        let (check, heads) = try store.read { db in
            (
             try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_day_track INDEXED BY rollup_day_track_top WHERE day >= '' AND plays >= 3"))
        }
        #expect(try names() == ["rollup_day_album_top", "rollup_day_artist_top", "rollup_day_genre_top", "rollup_day_track_top"])
        #expect(check == ["ok"])
        #expect(heads ?? 0 > 100)
        #expect(try store.read { db in try Store.fromDayHeads(.track, run, limit: 1, in: db) }?.count == 1)
        // 3-6 April, ~150 plays, under a third of April's: a short run, from its heads with
        // runs of at most 100 summed whole.
        #expect(try Self.ranked(store, .track, "2024-04-03", "2024-04-06", limit: 3, edge: 100).headReads > 0)
        try Store.$edgeDaysSummedWhole.withValue(100) {
            try EntityRollupTests.expectChartsExact(store, "imported days from their heads",
                                                    ranges: [("2024-04-03", "2024-04-06"), ("2024-03-30", "2024-04-02"), ("2024-04-10", "2024-04-10")])
        }
        try EntityRollupTests.expectExact(store, "an import with heads")
    }
}

/// The rollups by artist, album, year, day and year-and-hour (v7), month (v8) and artist and album per day (v17) stay equal to a recomputation from the plays
/// whichever way plays arrive or leave and whatever moves a track to other entities.
@Suite struct EntityRollupTests {
    /// Every entity rollup row: "table key… plays skips" → seconds.
    static func dump(_ store: Store, recomputed: Bool) throws -> [String: Double] {
        // 1 for a play in its month's first half, else 0.
        let firstHalf = "(substr(local_day, 9) <= '15')", firstHalfP = "(substr(p.local_day, 9) <= '15')"
        return try store.read { db in
            let queries: [(String, String)] = recomputed ? [
                ("rollup_artist_total", "SELECT a.artist_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN track_artists a ON a.track_id = p.track_id GROUP BY a.artist_id"),
                ("rollup_year_artist", "SELECT substr(p.local_day, 1, 4) || ' ' || a.artist_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN track_artists a ON a.track_id = p.track_id GROUP BY 1"),
                ("rollup_album_total", "SELECT t.album_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id IS NOT NULL GROUP BY t.album_id"),
                ("rollup_year_album", "SELECT substr(p.local_day, 1, 4) || ' ' || t.album_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id IS NOT NULL GROUP BY 1"),
                ("rollup_year_total", "SELECT substr(local_day, 1, 4), SUM(counted), SUM(1 - counted), SUM(played_s) FROM plays GROUP BY 1"),
                ("rollup_day_total", "SELECT local_day, SUM(counted), SUM(1 - counted), SUM(played_s) FROM plays GROUP BY 1"),
                ("rollup_year_hour", "SELECT substr(local_day, 1, 4) || ' ' || local_hour, SUM(counted), SUM(1 - counted), SUM(played_s) FROM plays GROUP BY 1"),
                ("rollup_month_track", "SELECT substr(local_day, 1, 7) || ' ' || track_id, SUM(counted), SUM(1 - counted), SUM(played_s) FROM plays GROUP BY 1"),
                ("rollup_month_artist", "SELECT substr(p.local_day, 1, 7) || ' ' || a.artist_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN track_artists a ON a.track_id = p.track_id GROUP BY 1"),
                ("rollup_month_album", "SELECT substr(p.local_day, 1, 7) || ' ' || t.album_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id IS NOT NULL GROUP BY 1"),
                ("rollup_month_total", "SELECT substr(local_day, 1, 7), SUM(counted), SUM(1 - counted), SUM(played_s) FROM plays GROUP BY 1"),
                ("rollup_day_artist", "SELECT p.local_day || ' ' || a.artist_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN track_artists a ON a.track_id = p.track_id GROUP BY 1"),
                ("rollup_day_album", "SELECT p.local_day || ' ' || t.album_id, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id IS NOT NULL GROUP BY 1"),
                ("rollup_track_first", "SELECT track_id || ' ' || MIN(local_day), 0, 0, 0.0 FROM plays WHERE counted = 1 GROUP BY track_id"),
                // Each month row's first half (v20): its counted plays and seconds of days 1 to 15.
                ("rollup_month_track half", "SELECT substr(local_day, 1, 7) || ' ' || track_id, SUM(counted * \(firstHalf)), 0, SUM(played_s * \(firstHalf)) FROM plays GROUP BY 1"),
                ("rollup_month_artist half", "SELECT substr(p.local_day, 1, 7) || ' ' || a.artist_id, SUM(p.counted * \(firstHalfP)), 0, SUM(p.played_s * \(firstHalfP)) FROM plays p JOIN track_artists a ON a.track_id = p.track_id GROUP BY 1"),
                ("rollup_month_album half", "SELECT substr(p.local_day, 1, 7) || ' ' || t.album_id, SUM(p.counted * \(firstHalfP)), 0, SUM(p.played_s * \(firstHalfP)) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id IS NOT NULL GROUP BY 1"),
            ] : [
                ("rollup_artist_total", "SELECT artist_id, plays, skips, played_s FROM rollup_artist_total"),
                ("rollup_year_artist", "SELECT year || ' ' || artist_id, plays, skips, played_s FROM rollup_year_artist"),
                ("rollup_album_total", "SELECT album_id, plays, skips, played_s FROM rollup_album_total"),
                ("rollup_year_album", "SELECT year || ' ' || album_id, plays, skips, played_s FROM rollup_year_album"),
                ("rollup_year_total", "SELECT year, plays, skips, played_s FROM rollup_year_total"),
                ("rollup_day_total", "SELECT day, plays, skips, played_s FROM rollup_day_total"),
                ("rollup_year_hour", "SELECT year || ' ' || hour, plays, skips, played_s FROM rollup_year_hour"),
                ("rollup_month_track", "SELECT month || ' ' || track_id, plays, skips, played_s FROM rollup_month_track"),
                ("rollup_month_artist", "SELECT month || ' ' || artist_id, plays, skips, played_s FROM rollup_month_artist"),
                ("rollup_month_album", "SELECT month || ' ' || album_id, plays, skips, played_s FROM rollup_month_album"),
                ("rollup_month_total", "SELECT month, plays, skips, played_s FROM rollup_month_total"),
                ("rollup_day_artist", "SELECT day || ' ' || artist_id, plays, skips, played_s FROM rollup_day_artist"),
                ("rollup_day_album", "SELECT day || ' ' || album_id, plays, skips, played_s FROM rollup_day_album"),
                ("rollup_track_first", "SELECT track_id || ' ' || day, 0, 0, 0.0 FROM rollup_track_first"),
                ("rollup_month_track half", "SELECT month || ' ' || track_id, first_half_plays, 0, first_half_played_s FROM rollup_month_track"),
                ("rollup_month_artist half", "SELECT month || ' ' || artist_id, first_half_plays, 0, first_half_played_s FROM rollup_month_artist"),
                ("rollup_month_album half", "SELECT month || ' ' || album_id, first_half_plays, 0, first_half_played_s FROM rollup_month_album"),
            ]
            var out: [String: Double] = [:]
            for (table, sql) in queries {
                for row in try Row.fetchAll(db, sql: sql) {
                    out["\(table) \(row[0] as DatabaseValue) \(row[1] as Int) \(row[2] as Int)"] = row[3]
                }
            }
            return out
        }
    }

    static func expectExact(_ store: Store, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stored = try dump(store, recomputed: false), recomputed = try dump(store, recomputed: true)
        #expect(stored.keys.sorted() == recomputed.keys.sorted(), "\(step)", sourceLocation: sourceLocation)
        for (key, seconds) in recomputed {
            #expect(abs((stored[key] ?? -1) - seconds) <= 1e-6 * max(1, seconds), "\(step): \(key)", sourceLocation: sourceLocation)
        }
        #expect(!stored.isEmpty, sourceLocation: sourceLocation)
        // Each year's chart lengths (v22, `YearChartLengths`): its rows of tracks, artists and
        // albums with counted plays, and what ListenBrainz's total counts read, from the plays.
        let (lengths, years) = try store.read { db in
            (try Row.fetchAll(db, sql: "SELECT year || ' ' || entity, charted FROM rollup_year_charted WHERE charted <> 0")
                .reduce(into: [String: Int]()) { $0[$1[0]] = $1[1] },
             try String.fetchAll(db, sql: "SELECT DISTINCT substr(local_day, 1, 4) FROM plays"))
        }
        let fromPlays = try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT substr(local_day, 1, 4) || ' track', COUNT(DISTINCT track_id) FROM plays WHERE counted = 1 GROUP BY 1
                UNION ALL SELECT substr(p.local_day, 1, 4) || ' artist', COUNT(DISTINCT a.artist_id) FROM plays p
                  JOIN track_artists a ON a.track_id = p.track_id WHERE p.counted = 1 AND a.artist_id IS NOT NULL GROUP BY 1
                UNION ALL SELECT substr(p.local_day, 1, 4) || ' album', COUNT(DISTINCT t.album_id) FROM plays p
                  JOIN tracks t ON t.id = p.track_id WHERE p.counted = 1 AND t.album_id IS NOT NULL GROUP BY 1
                """).reduce(into: [String: Int]()) { $0[$1[0]] = $1[1] }
        }
        #expect(lengths == fromPlays, "\(step): the years' chart lengths", sourceLocation: sourceLocation)
        for year in years {
            for entity in [Store.ChartEntity.track, .artist, .album] {
                #expect(try store.chartedCount(entity, fromDay: "\(year)-01-01", toDay: "\(year)-12-31") == fromPlays["\(year) \(entity.rawValue)"] ?? 0,
                        "\(step): \(year)'s \(entity) chart length", sourceLocation: sourceLocation)
            }
        }
        // What the stats page reads from them: charts (edge days summed whole, and looked up
        // through their months' indexes), totals, the clock and the days with music.
        try expectChartsExact(store, step, sourceLocation: sourceLocation)
        try Store.$edgeDaysSummedWhole.withValue(0) { try expectChartsExact(store, step + " (edge days looked up)", sourceLocation: sourceLocation) }
        // Runs of a few plays summed whole, short ones too unless the range's other run is
        // long (then a list), long ones lists: every mix of the two ways in one range.
        try Store.$edgeDaysSummedWhole.withValue(2) { try expectChartsExact(store, step + " (short and long runs)", sourceLocation: sourceLocation) }
        // And with a budget so small that every ranked sum gives up and the pieces are summed whole.
        try Store.$rankedBudget.withValue(1) {
            try Store.$edgeDaysSummedWhole.withValue(0) { try expectChartsExact(store, step + " (summed whole)", sourceLocation: sourceLocation) }
        }
        for (from, to) in [("0000-01-01", "9999-12-31"), ("2024-01-01", "2024-12-31"), ("2024-03-30", "2024-04-02"),
                           ("2024-04-01", "2024-04-30"), ("2024-03-31", "2024-05-03"), ("2024-02-10", "2025-01-01")] {
            let expected = try store.read { db in
                try Row.fetchOne(db, sql: "SELECT COALESCE(SUM(counted), 0), COUNT(*) - COALESCE(SUM(counted), 0) FROM plays WHERE local_day BETWEEN ? AND ?",
                                 arguments: [from, to])!
            }
            let totals = try store.totals(fromDay: from, toDay: to)
            #expect(totals.plays == expected[0] && totals.skips == expected[1], "\(step): totals \(from)–\(to)", sourceLocation: sourceLocation)
            let hours = try store.read { db in
                try Row.fetchAll(db, sql: "SELECT local_hour, SUM(counted) FROM plays WHERE local_day BETWEEN ? AND ? GROUP BY 1",
                                 arguments: [from, to])
            }
            var clock = [Double](repeating: 0, count: 24)
            for row in hours { clock[row[0] as Int] = row[1] }
            #expect(try store.hourTotals(fromDay: from, toDay: to) == clock, "\(step): clock \(from)–\(to)", sourceLocation: sourceLocation)
        }
        let days = try store.read { db in try String.fetchAll(db, sql: "SELECT local_day FROM plays GROUP BY 1 HAVING SUM(counted) > 0 ORDER BY 1") }
        #expect(try store.activeDays() == days, "\(step): days with music", sourceLocation: sourceLocation)
        #expect(try store.activeDayNumbers() == days.compactMap(CivilDate.days(of:)), "\(step): days with music, numbered",
                sourceLocation: sourceLocation)
        let plays = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plays") }
        #expect(try store.counts().plays == plays, "\(step): the status's count of plays", sourceLocation: sourceLocation)
        try expectSummariesExact(store, step, sourceLocation: sourceLocation)
    }

    /// The summaries of track, artist and album pages (from rollups and indexes) equal a
    /// recomputation over every play of their tracks: totals, months, first and last play, zones.
    static func expectSummariesExact(_ store: Store, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let sets: [(String, String, (Int64) throws -> TrackSummary)] = [
            ("track", "SELECT id, id FROM tracks", { try store.trackSummary(id: $0) }),
            ("artist", "SELECT artist_id, track_id FROM track_artists WHERE artist_id IS NOT NULL", { try store.artistSummary(id: $0) }),
            ("album", "SELECT album_id, id FROM tracks WHERE album_id IS NOT NULL", { try store.albumSummary(id: $0) }),
        ]
        for (kind, membership, summary) in sets {
            let members = try store.read { db in try Row.fetchAll(db, sql: membership).map { ($0[0] as Int64, $0[1] as Int64) } }
            let ids = Array(Set(members.map(\.0))).sorted()
            // Those with the most tracks and a spread of the rest.
            for id in ids.enumerated().filter({ $0.offset % max(1, ids.count / 12) == 0 }).map(\.element) {
                let tracks = Set(members.filter { $0.0 == id }.map(\.1)).map(String.init).joined(separator: ", ")
                let want = try store.read { db in
                    let totals = try Row.fetchOne(db, sql: """
                        SELECT COALESCE(SUM(counted), 0), COUNT(*) - COALESCE(SUM(counted), 0), MIN(started_at_ms), MAX(started_at_ms)
                        FROM plays WHERE track_id IN (\(tracks))
                        """)!
                    let months = try Row.fetchAll(db, sql: """
                        SELECT substr(local_day, 1, 7), SUM(counted) FROM plays WHERE track_id IN (\(tracks)) GROUP BY 1 ORDER BY 1
                        """).map { "\($0[0] as String) \($0[1] as Int)" }
                    var zones = Array(repeating: 0, count: 6)
                    for row in try Row.fetchAll(db, sql: """
                        SELECT zone, SUM(counted) FROM plays WHERE track_id IN (\(tracks)) AND zone IS NOT NULL GROUP BY 1
                        """) { zones[row[0] as Int] = row[1] }
                    return (plays: totals[0] as Int, skips: totals[1] as Int, first: totals[2] as Int64?, last: totals[3] as Int64?,
                            months: months, zones: zones)
                }
                let got = try summary(id)
                let label = "\(step): \(kind) \(id) summary"
                #expect(got.plays == want.plays && got.skips == want.skips, "\(label) totals", sourceLocation: sourceLocation)
                #expect(got.months.map { "\($0.month) \($0.plays)" } == want.months, "\(label) months", sourceLocation: sourceLocation)
                #expect(got.zones == want.zones, "\(label) zones", sourceLocation: sourceLocation)
                #expect(got.firstPlayed.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == want.first, "\(label) first",
                        sourceLocation: sourceLocation)
                #expect(got.lastPlayed.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == want.last, "\(label) last",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// Ranges of every shape: all time, a year, whole months, months with edge days, edge days
    /// only, a range that begins before the history and one that ends after it.
    static let ranges = [("0000-01-01", "9999-12-31"), ("2024-01-01", "2024-12-31"), ("2024-04-01", "2024-04-30"),
                         ("2024-03-01", "2024-05-31"), ("2024-03-31", "2024-05-03"), ("2024-04-10", "2024-04-20"),
                         ("2024-03-15", "2024-04-30"), ("2024-04-05", "2031-06-01"), ("2023-12-01", "2024-04-16"),
                         ("2030-12-31", "2031-01-01"), ("2024-04-01", "2024-04-01"), ("2024-02-03", "2024-03-27")]

    /// Every chart (tracks, artists, albums; by plays and by time; whole and cut short) equals
    /// its recomputation from the plays, for every shape of range.
    static func expectChartsExact(_ store: Store, _ step: String, ranges: [(String, String)] = ranges,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (from, to) in ranges {
            let expected = try store.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT p.track_id, SUM(p.counted), SUM(p.played_s), t.title FROM plays p JOIN tracks t ON t.id = p.track_id
                    WHERE p.local_day BETWEEN ? AND ? GROUP BY p.track_id HAVING SUM(p.counted) > 0
                    """, arguments: [from, to]).map { (id: $0[0] as Int64, plays: $0[1] as Int, seconds: $0[2] as Double, title: $0[3] as String) }
            }
            for order in ChartOrder.allCases {
                let sorted = RandomHistoryChartTests.sorted(expected.map { .init(id: $0.id, plays: $0.plays, seconds: $0.seconds, name: $0.title) }, order)
                for limit in [10_000, 3, 1] {
                    let chart = try store.topTracks(fromDay: from, toDay: to, limit: limit, by: order)
                    let want = sorted.prefix(limit)
                    #expect(chart.map(\.plays) == want.map(\.plays), "\(step): tracks \(from)–\(to) \(order) \(limit)", sourceLocation: sourceLocation)
                    #expect(zip(chart, want).allSatisfy { abs($0.seconds - $1.seconds) <= 1e-6 * max(1, $1.seconds) },
                            "\(step): track seconds \(from)–\(to) \(order) \(limit)", sourceLocation: sourceLocation)
                    #expect(chart.map { $0.track!.id! } == want.map(\.id), "\(step): track order \(from)–\(to) \(order) \(limit)", sourceLocation: sourceLocation)
                }
            }
            let charts = try EntityStoreTests.charts(store, from: from, to: to)
            // ListenBrainz's totals: how long each whole chart is, from the same rollups.
            let counts = try [Store.ChartEntity.track, .artist, .album].map { try store.chartedCount($0, fromDay: from, toDay: to) }
            #expect(counts == [expected.count, charts.artists.count, charts.albums.count], "\(step): chart lengths \(from)–\(to)",
                    sourceLocation: sourceLocation)
            // The chart and its length read together (ListenBrainz's statistics): the same
            // entries as the chart alone, and the same length, whichever way the range was summed.
            for (entity, count) in zip([Store.ChartEntity.track, .artist, .album], counts) {
                for limit in [1, 3, 10_000] {
                    let counted = try store.countedChart(entity, fromDay: from, toDay: to, limit: limit)
                    let alone = switch entity {
                    case .track: try store.topTracks(fromDay: from, toDay: to, limit: limit)
                    case .artist: try store.topArtists(fromDay: from, toDay: to, limit: limit)
                    case .album: try store.topAlbums(fromDay: from, toDay: to, limit: limit)
                    case .genre: try store.topGenres(fromDay: from, toDay: to, limit: limit)
                    }
                    #expect(counted.total == count, "\(step): \(entity) chart length with the chart \(from)–\(to) \(limit)",
                            sourceLocation: sourceLocation)
                    #expect(counted.entries.map { [$0.track?.id, $0.artistID, $0.albumID] } == alone.map { [$0.track?.id, $0.artistID, $0.albumID] }
                            && counted.entries.map(\.plays) == alone.map(\.plays),
                            "\(step): \(entity) chart with its length \(from)–\(to) \(limit)", sourceLocation: sourceLocation)
                }
            }
            // The stats page's four figures from one read: what each gives alone.
            for order in ChartOrder.allCases {
                let together = try store.rangeStats(fromDay: from, toDay: to, limit: 3, by: order)
                let alone = RangeStats(totals: try store.totals(fromDay: from, toDay: to),
                                       tracks: try store.topTracks(fromDay: from, toDay: to, limit: 3, by: order),
                                       artists: try store.topArtists(fromDay: from, toDay: to, limit: 3, by: order),
                                       albums: try store.topAlbums(fromDay: from, toDay: to, limit: 3, by: order))
                #expect(together == alone, "\(step): a range's stats from one read \(from)–\(to) \(order)", sourceLocation: sourceLocation)
            }
            #expect(charts.artists == (try EntityStoreTests.recomputed(store, "artist", from: from, to: to)), "\(step): artists \(from)–\(to)",
                    sourceLocation: sourceLocation)
            #expect(charts.albums == (try EntityStoreTests.recomputed(store, "album", from: from, to: to)), "\(step): albums \(from)–\(to)",
                    sourceLocation: sourceLocation)
            for (kind, chart) in [("artists", try store.topArtists(fromDay: from, toDay: to, limit: 2)),
                                  ("albums", try store.topAlbums(fromDay: from, toDay: to, limit: 2))] {
                let all = kind == "artists" ? charts.artists : charts.albums
                #expect(chart.map(\.plays) == Array(all.values.sorted(by: >).prefix(2)), "\(step): top 2 \(kind) \(from)–\(to)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// ListenBrainz's all-time totals (`total_recording_count`…) count what has counted
    /// plays: a track, artist or album only ever skipped has a rollup row but is left out,
    /// and one skipped after a counted play stays in. (The all-time count is the table's
    /// rows less those of skips only, not a read of every row.)
    @Test func allTimeTotalsLeaveOutWhatWasOnlySkipped() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        func play(_ track: Track, at seconds: Double, counted: Bool) throws {
            let id = try store.saveTrack(track)
            _ = try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: seconds),
                                          endedAt: Date(timeIntervalSince1970: seconds + 30), playedSeconds: 30,
                                          counted: counted, source: "mpd"))
        }
        try play(Track(title: "Kept", artist: "Ana", album: "First"), at: 1_712_000_000, counted: true)
        try play(Track(title: "Kept", artist: "Ana", album: "First"), at: 1_712_000_600, counted: false)
        try play(Track(title: "Skipped", artist: "Ben", album: "Second"), at: 1_712_001_200, counted: false)
        try play(Track(title: "Skipped", artist: "Ben", album: "Second"), at: 1_712_001_800, counted: false)
        let rows = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_track_total") }
        #expect(rows == 2, "the skipped track has its row")
        let counts = try [Store.ChartEntity.track, .artist, .album].map { try store.chartedCount($0, fromDay: "0000-01-01", toDay: "9999-12-31") }
        #expect(counts == [1, 1, 1])
    }

    /// A range that runs past the history's end (this week, on its first days) is read as
    /// its days: its end moves to the year's end, which makes whole years of what is whole,
    /// but the empty months that adds are no pieces to read. (They were: each chart of this
    /// week went through the ranked sum of an empty December and its days.)
    @Test func aRangePastTheHistorysEndReadsNoEmptyMonth() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        #expect(try ListenImportSession(store: store, source: "import:test").insert(ImportStoreTests.listens(count: 300)).imported == 300)
        let last = try #require(try store.read { db in try String.fetchOne(db, sql: "SELECT MAX(day) FROM rollup_day_total") })
        let from = Store.dayBefore(Store.dayBefore(last))
        var to = last
        for _ in 0..<6 { to = Store.dayAfter(to) }
        let source = try store.read { db in try Store.rangeSource(fromDay: from, toDay: to, in: db) }
        guard case .pieces(let pieces)? = source else {
            Issue.record("\(from)–\(to): \(String(describing: source))")
            return
        }
        #expect(pieces.years.isEmpty && pieces.months.isEmpty, "\(pieces)")
        #expect(pieces.days.map(\.from) == [from], "\(pieces)")
        // What moving the end to the year's end is for: the year from its first day is whole
        // (and this history, all in that year, is all time).
        let year = String(last.prefix(4))
        #expect(try store.read { db in try Store.rangeSource(fromDay: year + "-01-01", toDay: to, in: db) } == .whole(.all))
    }

    @Test func entityRollupsEqualTheirRecomputationThroughEveryChange() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: zone)
        let listens = ImportStoreTests.listens(count: 1500, seed: 3)
        try ImportStoreTests.storeOneByOne(listens.prefix(200), in: store)
        try Self.expectExact(store, "plays one by one")
        #expect(try ListenImportSession(store: store, source: "import:test").insert(Array(listens.dropFirst(200))).imported == 1300)
        try Self.expectExact(store, "a bulk import")
        // Heart-rate zones on some plays (skips among them), as a workout tags them.
        try store.write { db in try db.execute(sql: "UPDATE plays SET zone = id % 6 WHERE id % 7 = 0") }
        try Self.expectSummariesExact(store, "zones")
        // An import whose tracks move to other artists between two of its batches (another
        // connection changes the separators): its later plays follow them.
        let session = ListenImportSession(store: store, source: "import:later")
        let duo = Track(title: "Between", artist: "Artist 0 & Artist 1")
        #expect(try session.insert([ImportedListen(track: duo, startedAtMs: 1_750_000_000_000, playedSeconds: 100)]).imported == 1)
        #expect(try store.applyCreditSeparators(["&"]).map(\.title).contains("Between"))
        #expect(try session.insert([ImportedListen(track: duo, startedAtMs: 1_750_000_500_000, playedSeconds: 100)]).imported == 1)
        try Self.expectExact(store, "an import across a change of credits")
        _ = try store.applyCreditSeparators([])
        try Self.expectExact(store, "separators off again")
        // A file with plays, re-tagged to another album and another artist.
        let file = try CreditStoreTests.play(store, Track(uri: "f.flac", title: "File", artist: "Artist 1 & Friend", album: "Album"), at: 1_712_000_000)
        _ = try CreditStoreTests.play(store, Track(uri: "f.flac", title: "File", artist: "Artist 1 & Friend", album: "Album"), at: 1_712_000_500)
        try Self.expectExact(store, "plays of a file")
        _ = try store.saveTrack(Track(uri: "f.flac", title: "File", artist: "Someone Else", album: "Other Album"))
        try Self.expectExact(store, "a re-tag")
        _ = try store.saveTrack(Track(uri: "f.flac", title: "File", artist: "Someone Else"))
        try Self.expectExact(store, "the album tag removed")
        // Separators split past credits; then back.
        _ = try CreditStoreTests.play(store, Track(title: "Duo", artist: "Artist 0 & Artist 2"), at: 1_712_001_000)
        _ = try CreditStoreTests.play(store, Track(title: "Duo", artist: "Artist 0 & Artist 2"), at: 1_712_002_000)
        #expect(try store.applyCreditSeparators(["&"]).map(\.title).contains("Duo"))
        try Self.expectExact(store, "credits split on &")
        _ = try store.applyCreditSeparators([])
        try Self.expectExact(store, "credits joined again")
        // Deletes.
        for play in try store.recentPlays(limit: 40) where play.play.id! % 3 == 0 {
            #expect(try store.deletePlay(id: play.play.id!) != nil)
        }
        try Self.expectExact(store, "deletes")
        // Plays edited in place (what corrections will do): counted, hour, day and track.
        let otherTrack = try #require(try store.recentPlays(limit: 1).first?.track.id)
        try store.write { db in
            try db.execute(sql: """
                UPDATE plays SET counted = 1 - counted WHERE id % 7 = 0;
                UPDATE plays SET local_hour = (local_hour + 5) % 24 WHERE id % 11 = 0;
                UPDATE plays SET local_day = '2031-01-01' WHERE id % 13 = 0;
                UPDATE plays SET track_id = ? WHERE id % 17 = 0 AND track_id != ?
                  AND NOT EXISTS (SELECT 1 FROM plays q WHERE q.track_id = ? AND q.started_at_ms = plays.started_at_ms);
                """, arguments: [otherTrack, otherTrack, otherTrack])
        }
        try Self.expectExact(store, "edits")
        #expect(file > 0)
        // Another display time zone: local days move, every rollup is rebuilt.
        try store.close()
        store = try Store.open(path: path, timeZone: TimeZone(identifier: "Pacific/Auckland")!)
        try Self.expectExact(store, "a new time zone")
        try store.close()
    }
}

extension ImportStoreTests {
    /// Listens stored one by one, as the watcher stores plays (the rollup triggers).
    static func storeOneByOne(_ listens: ArraySlice<ImportedListen>, in store: Store) throws {
        for l in listens {
            let id = try store.saveTrack(l.track)
            try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: Double(l.startedAtMs) / 1000),
                                      endedAt: Date(timeIntervalSince1970: Double(l.endedAtMs) / 1000), playedSeconds: l.playedSeconds,
                                      counted: l.counted, source: "import:test", player: l.player))
        }
    }
}

extension EntityRollupTests {
    /// A range of days across the end of a month (no whole month in it) read through the
    /// lists: each month's days must be bounded by their own month, not the first month's.
    @Test func aRunOfDaysAcrossTwoMonthsFindsTheSecondMonthsBest() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // Noon in Berlin on a day of 2024.
        func at(_ month: Int, _ day: Int, _ n: Int) -> Int64 {
            Int64(CivilDate.days(year: 2024, month: month, day: day)) * 86_400_000 + 11 * 3_600_000 + Int64(n) * 300_000
        }
        var listens: [ImportedListen] = []
        // May: "Old" five times in the run's May days, and plays of May outside the run.
        for n in 0..<5 { listens.append(ImportedListen(track: Track(title: "Old", artist: "A"), startedAtMs: at(5, 20, n), playedSeconds: 100)) }
        for n in 0..<3 { listens.append(ImportedListen(track: Track(title: "Earlier", artist: "B"), startedAtMs: at(5, 2, n), playedSeconds: 100)) }
        // And after the run, so that its ends stay where they are (no whole month in it).
        for n in 0..<3 { listens.append(ImportedListen(track: Track(title: "Later", artist: "B"), startedAtMs: at(6, 25, n), playedSeconds: 100)) }
        // June: "New" ten times, never played in May.
        for n in 0..<10 { listens.append(ImportedListen(track: Track(title: "New", artist: "C", album: "Fresh"), startedAtMs: at(6, 5, n), playedSeconds: 100)) }
        #expect(try ListenImportSession(store: store, source: "import:test").insert(listens).imported == 21)
        let source = try store.read { db in try Store.rangeSource(fromDay: "2024-05-17", toDay: "2024-06-15", in: db) }
        #expect(source == .pieces(RangePieces(days: [.init(from: "2024-05-17", to: "2024-05-31"), .init(from: "2024-06-01", to: "2024-06-15")])))
        for summedWhole in [1_000, 0] {
            try Store.$edgeDaysSummedWhole.withValue(summedWhole) {
                let tracks = try store.topTracks(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 1)
                #expect(tracks.map { $0.track?.title } == ["New"], "edge days summed whole: \(summedWhole)")
                #expect(tracks.first?.plays == 10)
                let byTime = try store.topTracks(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 1, by: .time)
                #expect(byTime.map { $0.track?.title } == ["New"] && byTime.first?.seconds == 1_000, "by time, edge days summed whole: \(summedWhole)")
                #expect(try store.topArtists(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 1).map(\.artist) == ["C"])
                #expect(try store.topAlbums(fromDay: "2024-05-17", toDay: "2024-06-15", limit: 1).map(\.album) == ["Fresh"])
            }
        }
        try Self.expectExact(store, "a run across two months")
    }
}

extension EntityRollupTests {
    /// Charts of random ranges over listening that changes with time — tracks that come and
    /// go, each popular for a while — read every way (edge days summed whole or through their
    /// months' lists, the ranked sum or the pieces summed whole), equal their recomputation
    /// from the plays. (Stationary listening hides a list that bounds the wrong days.)
    @Test func randomRangesOfChangingListeningChartExactly() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        var state: UInt64 = 7
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let first = CivilDate.days(year: 2024, month: 3, day: 1), span = 140
        // Each track is played within a window of days, some briefly and often.
        let tracks = (0..<160).map { i -> (track: Track, from: Int, days: Int, weight: Int) in
            let from = random(span), days = 1 + random(i % 4 == 0 ? 6 : 60)
            return (Track(title: "Song \(i)", artist: "Artist \(i % 23)" + (i % 9 == 0 ? " feat. Guest \(i % 5)" : ""),
                          album: i % 7 == 0 ? nil : "Album \(i % 17)", durationSeconds: 200), from, days, 1 + random(i % 4 == 0 ? 40 : 8))
        }
        var listens: [ImportedListen] = []
        for day in 0..<span {
            let active = tracks.filter { day >= $0.from && day < $0.from + $0.days }
            let total = active.reduce(0) { $0 + $1.weight }
            guard total > 0 else { continue }
            for n in 0..<(5 + random(30)) {
                var pick = random(total)
                let chosen = active.first { pick -= $0.weight; return pick < 0 }!
                let at = Int64(first + day) * 86_400_000 + Int64(n) * 600_000 + 8 * 3_600_000
                listens.append(ImportedListen(track: chosen.track, startedAtMs: at, playedSeconds: Double(30 + random(300)) + 0.25,
                                              counted: random(6) != 0))
            }
        }
        #expect(try ListenImportSession(store: store, source: "import:test").insert(listens).imported == listens.count)
        let ranges = (0..<30).map { _ -> (String, String) in
            let a = first - 5 + random(span + 10), b = a + random(75)
            return (Self.dayText(a), Self.dayText(b))
        }
        try Self.expectChartsExact(store, "changing listening", ranges: ranges)
        try Store.$edgeDaysSummedWhole.withValue(0) {
            try Self.expectChartsExact(store, "changing listening, edge days through their months", ranges: ranges)
            try Store.$rankedBudget.withValue(1) {
                try Self.expectChartsExact(store, "changing listening, summed whole", ranges: ranges)
            }
        }
    }

    static func dayText(_ number: Int) -> String {
        let civil = CivilDate.civil(days: number)
        return LocalTime.format(year: civil.year, month: civil.month, day: civil.day)
    }
}

/// v23 builds the search index again without its column sizes: a v22 database's tracks are
/// found as before, and the triggers keep the index in step as tracks come, change and go.
@Suite struct SearchWithoutSizesMigrationTests {
    @Test func aV22DatabasesTracksAreFoundAndKeptFindable() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v22.sqlite")
        try RankingHeadsTests.v17Database(path)
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v22.year-chart-lengths")
        let before = try queue.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH 'song' ORDER BY rowid")
        }
        try queue.close()
        #expect(before.count > 1)
        let store = try Store.open(path: path, timeZone: zone)
        defer { try? store.close() }
        try store.read { db in
            try #expect(String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'tracks_fts'")?.contains("columnsize = 0") == true)
            try #expect(Int64.fetchAll(db, sql: "SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH 'song' ORDER BY rowid") == before)
            try #expect(Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'tracks_fts_docsize'") == 0)
        }
        let added = try store.saveTrack(Track(title: "Hyperballad", artist: "Björk"))
        try store.write { db in
            try db.execute(sql: "UPDATE tracks SET title = 'Renamed' WHERE id = ?", arguments: [before[0]])
            try db.execute(sql: "DELETE FROM tracks WHERE id = ? AND NOT EXISTS (SELECT 1 FROM plays WHERE track_id = ?)",
                           arguments: [added, added])
            try db.execute(sql: "INSERT INTO tracks_fts (tracks_fts) VALUES ('integrity-check')")  // throws when out of step
        }
        try store.read { db in
            try #expect(Int64.fetchAll(db, sql: "SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH 'song' ORDER BY rowid") == Array(before.dropFirst()))
            try #expect(Int64.fetchAll(db, sql: "SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH 'renamed'") == [before[0]])
            try #expect(Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks_fts WHERE tracks_fts MATCH 'bjork'") == 0)
        }
    }
}
