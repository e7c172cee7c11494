import Foundation
import Testing
@testable import PacenoteCore

/// An empty list of suggestions says which rule emptied it and what to do (issue 52): the
/// census counts each rule's tracks, and the reason is chosen from it.
@Suite struct RecommenderEmptyReasonTests {
    let helper = RecommenderTests()

    func answer(_ m: RecommenderTests.Library, _ r: Recommender.Request) -> Recommender.Answer {
        Recommender.answer(m.model, r, texts: ListeningModel.Texts.lookup(m.tracks))
    }

    func ref(_ m: RecommenderTests.Library, _ id: Int64) -> Recommender.SongRef {
        let t = m.texts(of: id)
        return .init(artist: t.artist, title: t.title)
    }

    /// The demo's case: a small library whose every song was played in the last hours.
    @Test func everySongPlayedRecently() throws {
        var m = helper.model((1...12).map { (Int64($0), "Artist \($0)", "Song \($0)", 135.0) })
        for id in Int64(1)...12 { helper.play(&m, id, hoursAgo: Double(id) * 0.4) }
        let r = helper.request(in: m)
        let a = answer(m, r)
        #expect(a.suggestions.isEmpty)
        #expect(a.census.library == 12 && a.census.recentlyPlayed == 12 && a.census.leftOut == 12)
        let why = try #require(a.emptyReason(for: r))
        #expect(why.code == "all_recently_played")
        #expect(why.message == "All 12 songs in the library were played in the last 6 hours.")
        #expect(why.fix.contains("lower [recommender] recent_hours"), "\(why.fix)")
        // With a shorter window they come back, and nothing needs explaining.
        var shorter = r
        shorter.recentHours = 1
        let back = answer(m, shorter)
        #expect(back.suggestions.count == 10 && back.emptyReason(for: shorter) == nil)
        #expect(back.census.recentlyPlayed == 2)
    }

    /// `mpc add /`: the whole library in MPD's queue, one of it playing.
    @Test func everySongInMPDsQueue() throws {
        let m = helper.model((1...5).map { (Int64($0), "A\($0)", "T\($0)", 135.0) })
        var r = helper.request(current: 1, in: m)
        r.queued = (2...5).map { ref(m, $0) }
        let a = answer(m, r)
        #expect(a.suggestions.isEmpty)
        #expect(a.census.playing == 1 && a.census.queued == 4 && a.census.recentlyPlayed == 0)
        let why = try #require(a.emptyReason(for: r))
        #expect(why.code == "all_queued")
        #expect(why.message == "Every song in the library is in MPD's queue: 4 are queued in MPD, 1 is playing now.")
        #expect(why.fix.contains("`mpc crop`"))
        // Cropped: four come back.
        r.queued = []
        #expect(answer(m, r).suggestions.count == 4)
    }

    @Test func severalRulesTogetherAreEachNamedWithTheirFixes() throws {
        var m = helper.model([(1, "A", "One", 135), (2, "B", "Two", 135), (3, "C", "Three", 135), (4, "D", "Four", 135)])
        helper.play(&m, 1, hoursAgo: 1)
        helper.play(&m, 2, hoursAgo: 2)
        var r = helper.request(in: m)
        r.queued = [ref(m, 2), ref(m, 3)]
        r.disliked = [4]
        let a = answer(m, r)
        let why = try #require(a.emptyReason(for: r))
        #expect(why.code == "all_left_out")
        #expect(why.message == "All 4 songs in the library are left out: 2 were played in the last 6 hours, 2 are queued in MPD, 1 is disliked.")
        #expect(why.fix.contains("`mpc crop`") && why.fix.contains("recent_hours") && why.fix.contains("✕"), "\(why.fix)")
    }

    @Test func noSongFitsTheZonesTempo() throws {
        var m = helper.model([(1, "A", "Slow", 90), (2, "B", "Fast", 180), (3, "C", "Played", 135)])
        helper.play(&m, 3, hoursAgo: 1)
        let r = helper.request(zone: .z4, in: m)
        let a = answer(m, r)
        #expect(a.census.offTempo == 2 && a.census.leftOut == 1)
        let why = try #require(a.emptyReason(for: r))
        #expect(why.code == "none_fits_tempo")
        #expect(why.message == "None of the 2 songs left has a BPM that fits zone 4's 130–140 bpm (or half or double that); "
                + "1 more is left out: 1 was played in the last 6 hours.")
        #expect(why.fix.hasPrefix("Ask for another zone, or widen [recommender] tempo_z4."), "\(why.fix)")
        // Without a zone there is no tempo target: both come.
        #expect(answer(m, helper.request(zone: nil, in: m)).suggestions.count == 2)
    }

    @Test func anEmptyLibraryAndAnUnknownTempoAreExplained() throws {
        let empty = RecommenderTests.Library()
        let r = helper.request(in: empty)
        #expect(try #require(answer(empty, r).emptyReason(for: r)).code == "empty_library")

        // No BPM anywhere: suggestions come (after any that fit, of which there are none),
        // with a note that the tempo could not be taken into account.
        let m = helper.model([(1, "A", "One", nil), (2, "B", "Two", nil)])
        let q = helper.request(in: m)
        let a = answer(m, q)
        #expect(a.suggestions.count == 2 && a.emptyReason(for: q) == nil)
        #expect(a.census.withoutBPM == 2)
        #expect(a.census.tempoNote(for: q)?.contains("`pacenote analyze`") == true)
        #expect(a.census.tempoNote(for: helper.request(zone: nil, in: m)) == nil, "no tempo asked for: nothing to note")
    }

    @Test func wordingIsSingularForOne() throws {
        var m = helper.model([(1, "A", "Only", 135)])
        helper.play(&m, 1, hoursAgo: 2)
        var r = helper.request(in: m)
        r.recentHours = 1.5
        #expect(answer(m, r).emptyReason(for: r) == nil)
        r.recentHours = 3
        let why = try #require(answer(m, r).emptyReason(for: r))
        #expect(why.message == "The only song in the library was played in the last 3 hours.")
        #expect(Recommender.Census.hours(1) == "1 hour" && Recommender.Census.hours(1.5) == "1.5 hours")
    }
}
