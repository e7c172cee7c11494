import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteApp

/// The smart playlists' periodic look (issue 57) against a real MPD: with nothing changed it
/// refreshes nothing (a refresh reads every definition's songs: hundreds of ms on a wide
/// library), and a change another process wrote, unannounced, is in MPD at the next look.
@Suite struct SmartPlaylistSyncTests {
    @Test func theLookRefreshesOnlyWhenSomethingChanged() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("a.flac", seconds: 5, title: "Alpha", artist: "T"),
                                           TestTrack("b.flac", seconds: 5, title: "Bravo", artist: "T", frequency: 550)])
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        try store.applyLibrary(player: "default", changed: [("a.flac", "Alpha"), ("b.flac", "Bravo")].map {
            SongInfo(uri: $0.0, tags: ["Title": $0.1, "Artist": "T"], durationSeconds: 5)
        }, removed: [], stickers: [:])
        var rules = SmartPlaylist.Rules()
        rules.liked = true
        _ = try Operations(store: store, events: nil).createSmartPlaylist(name: "Loved", kind: .smart, rules: rules)
        let sync = SmartPlaylistSync(store: store, endpoint: MPDEndpoint(location: .tcp(host: "127.0.0.1", port: mpd.port)),
                                     tempo: .defaults, events: nil, logger: Logger(label: "test"),
                                     clock: { Date(timeIntervalSince1970: 1_796_212_800) })  // one hour throughout
        sync.start(checkEvery: 0.02)
        defer { sync.stop() }
        func titles() -> [String] {
            ((try? mpd.mpc("-f", "%title%", "playlist", "Loved")) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(eventually { sync.counts().refreshes == 1 && ((try? mpd.mpc("lsplaylists")) ?? "").contains("Loved") },
                "\(sync.counts()) \(sync.states())")
        #expect(titles().isEmpty, "nothing liked yet")
        // Twenty looks with nothing changed: no refresh.
        let looked = sync.counts().looks
        #expect(eventually { sync.counts().looks >= looked + 20 })
        #expect(sync.counts().refreshes == 1, "\(sync.counts())")
        // Another process likes a song (no announcement on this bus): the next look refreshes.
        let alpha = try #require(try store.track(uri: "a.flac")?.id)
        _ = try store.setFeelings([(alpha, .like)], source: "other process")
        #expect(eventually { titles() == ["Alpha"] }, "\(titles())")
        #expect(sync.counts().refreshes == 2, "\(sync.counts())")
        // And nothing more after it.
        let after = sync.counts().looks
        #expect(eventually { sync.counts().looks >= after + 20 })
        #expect(sync.counts().refreshes == 2, "\(sync.counts())")
    }
}
