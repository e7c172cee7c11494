import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import PacenoteWeb
import Testing
@testable import PacenoteApp

/// The recommender hears of every change through the write path's announcements: a new
/// tempo reorders suggestions at once, and a deleted play (a change to the past, which
/// reading only newer plays would never see) no longer counts.
@Suite struct RecommenderFollowsChangesTests {
    /// A database whose library has these songs (file: title, by "<title> Band"), the write
    /// path, and a recommender (no exploration) that follows its announcements.
    final class Library {
        let dir: TemporaryDirectory
        let store: Store
        let bus = EventBus()
        let operations: Operations
        let service: RecommenderService

        init(_ songs: [String: String]) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            try store.applyLibrary(player: "default", changed: songs.map { uri, title in
                SongInfo(uri: uri, tags: ["Title": title, "Artist": title + " Band"], durationSeconds: 200)
            }, removed: [], stickers: [:])
            operations = Operations(store: store, events: bus)
            var settings = Config.Recommender()
            settings.exploration = 0
            service = RecommenderService(store: store, settings: settings, heartRate: nil, players: [], endpoint: nil,
                                         playerName: "default", events: bus, logger: Logger(label: "test"))
        }

        deinit {
            service.stop()
            try? store.close()
        }
    }

    @Test func aTempoAPlayAndADeleteReachTheModelThroughTheirEvents() throws {
        let library = try Library(["fast.flac": "Fast", "slow.flac": "Slow"])
        let (store, operations, service) = (library.store, library.operations, library.service)
        let fast = try #require(try store.track(uri: "fast.flac")?.id)
        let slow = try #require(try store.track(uri: "slow.flac")?.id)
        try operations.setBPM(trackID: fast, value: 170)
        try operations.setBPM(trackID: slow, value: 120)
        func first(_ cadence: Double) throws -> Int64? {
            try service.recommendations(RecommendationQuery(limit: 2, mode: .cadence, cadence: cadence)).suggestions.first?.track.id
        }
        #expect(try first(170) == fast)

        // Tempo: swapped by hand, seen on the very next request (the background check of
        // the tracks runs only every 2 s).
        try operations.setBPM(trackID: fast, value: 120)
        try operations.setBPM(trackID: slow, value: 170)
        #expect(try first(170) == slow)

        // A play: the song just played is not suggested again (recent_hours).
        let logged = try operations.recordListens([(track: Track(uri: "slow.flac", title: "Slow", artist: "Slow Band",
                                                                   durationSeconds: 200),
                                                    startedAt: Date().addingTimeInterval(-300), client: nil)],
                                                  source: "listenbrainz")
        #expect(logged.count == 1)
        let afterPlay = try service.recommendations(RecommendationQuery(limit: 2, mode: .cadence, cadence: 170))
        #expect(!afterPlay.suggestions.contains { $0.track.id == slow })

        // A delete: the play is gone from the model as well, so the song is back.
        _ = try operations.deletePlay(id: logged[0].id)
        #expect(try first(170) == slow)

        // A merge: the merged file is the kept one's alias, never suggested on its own; its
        // undo brings it back.
        let merge = try operations.merge(.track, from: [slow], into: fast, request: "{}")
        let merged = try service.recommendations(RecommendationQuery(limit: 2, mode: .cadence, cadence: 170)).suggestions.map(\.track.id)
        #expect(!merged.contains(slow), "\(merged)")
        _ = try operations.undoCuration(id: merge.id)
        #expect(try first(170) == slow)
    }

    /// A scrobble of a song the database did not know stores its track and its play at once:
    /// the next request reads the track with the play (the background check of the tracks
    /// runs only every 2 s), so the play counts and the song just played is not suggested.
    @Test func aPlayOfATrackNewToTheDatabaseCountsAtOnce() throws {
        let library = try Library(["a.flac": "A", "b.flac": "B"])
        let (store, operations, service) = (library.store, library.operations, library.service)
        _ = try service.recommendations(RecommendationQuery(limit: 3))
        let logged = try operations.recordListens([(track: Track(title: "New", artist: "New Band", durationSeconds: 200),
                                                    startedAt: Date().addingTimeInterval(-300), client: nil)],
                                                  source: "listenbrainz")
        let id = try #require(logged.first?.play.trackID)
        #expect(try store.track(id: id)?.title == "New")
        let model = try service.refreshedModel()
        #expect(model.record(of: id).counted == 1, "the play of the new track is in the model")
        let ids = try service.recommendations(RecommendationQuery(limit: 3)).suggestions.map(\.track.id)
        #expect(!ids.contains(id), "the song just played is left out: \(ids)")
    }

    /// A change to past plays makes the model stale as a whole, and its rebuild takes seconds
    /// on a large history: the dashboard must not wait for it. The
    /// service says it is not ready from the change until the model is built again (the
    /// dashboard then shows no suggestions and asks for the build in the background).
    @Test func notReadyFromAChangeToThePastUntilTheModelIsBuiltAgain() throws {
        let library = try Library(["a.flac": "A", "b.flac": "B"])
        let (store, operations, service) = (library.store, library.operations, library.service)
        func waitUntilReady() throws {
            let deadline = Date().addingTimeInterval(10)
            while !service.isReady, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(service.isReady, "built again in the background")
        }
        #expect(!service.isReady, "not built yet")
        service.prepare()
        try waitUntilReady()

        // A new play: read on the next use, no rebuild.
        let logged = try operations.recordListens([(track: Track(uri: "b.flac", title: "B", artist: "B Band", durationSeconds: 200),
                                                    startedAt: Date().addingTimeInterval(-300), client: nil)],
                                                  source: "listenbrainz")
        #expect(service.isReady)
        let afterPlay = try service.recommendations(RecommendationQuery(limit: 2)).suggestions.map(\.track.uri)
        #expect(afterPlay == ["a.flac"], "the song just played is left out")

        // A delete changes the past: not ready at once, and the dashboard's call answers
        // nil at once (it asks for the rebuild in the background); ready again once rebuilt.
        _ = try operations.deletePlay(id: logged[0].id)
        #expect(!service.isReady)
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil)
        try waitUntilReady()
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) != nil)
        let afterDelete = try service.recommendations(RecommendationQuery(limit: 2)).suggestions.compactMap(\.track.uri)
        #expect(Set(afterDelete) == ["a.flac", "b.flac"], "the deleted play no longer counts")

        // A merge moves plays between tracks: not ready either. A request that does not go
        // through the dashboard waits for the rebuild itself, and sees the merge.
        let a = try #require(try store.track(uri: "a.flac")?.id), b = try #require(try store.track(uri: "b.flac")?.id)
        _ = try operations.merge(.track, from: [b], into: a, request: "{}")
        #expect(!service.isReady)
        let afterMerge = try service.recommendations(RecommendationQuery(limit: 2)).suggestions.map(\.track.id)
        #expect(afterMerge == [a])
        #expect(service.isReady)
    }

    /// A build reads the whole history (8 s at 5M plays) outside the model's lock: while one
    /// is under way, the write path's announcements (made on the writer's thread, just after
    /// a delete or a like commits), the dashboard's call, "not now", `isReady` and a refresh
    /// of the tracks all answer at once; a request for suggestions waits for the build, and
    /// sees every change made before it (a delete announced during the build has it built
    /// once more), but not for another build for a change made after it (an import
    /// announces each transaction).
    @Test func nothingButARequestForSuggestionsWaitsForABuild() throws {
        let library = try Library(["a.flac": "A", "b.flac": "B"])
        let (store, operations, service, bus) = (library.store, library.operations, library.service, library.bus)
        let a = try #require(try store.track(uri: "a.flac")?.id)
        let logged = try operations.recordListens([(track: Track(uri: "b.flac", title: "B", artist: "B Band", durationSeconds: 200),
                                                    startedAt: Date().addingTimeInterval(-300), client: nil),
                                                   (track: Track(uri: "a.flac", title: "A", artist: "A Band", durationSeconds: 200),
                                                    startedAt: Date().addingTimeInterval(-3 * 86_400), client: nil)],
                                                  source: "listenbrainz")
        // The first build runs freely; the second (the first rebuild) is held until released;
        // the third announces another change; the fourth (for that change) is held.
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), releaseFourth = DispatchSemaphore(value: 0)
        final class Builds: @unchecked Sendable {
            let lock = NSLock()
            var count = 0, resumed = false
        }
        let builds = Builds()
        service.whileBuilding = {
            let count = builds.lock.withLock { builds.count += 1; return builds.count }
            if count == 3 { bus.publish(.changed(.playsRewritten(.imported))) }
            if count == 4 { _ = releaseFourth.wait(timeout: .now() + 60) }
            guard count == 2 else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + 20)
            builds.lock.withLock { builds.resumed = true }
        }
        _ = try service.recommendations(RecommendationQuery(limit: 2))
        #expect(service.isReady)

        _ = try operations.deletePlay(id: logged[0].id)
        #expect(!service.isReady)
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil, "asks for the rebuild")
        #expect(entered.wait(timeout: .now() + 10) == .success, "the rebuild began")
        func heldStill(_ what: String) {
            #expect(!builds.lock.withLock { builds.resumed }, "\(what) answered while the build was under way")
        }
        _ = try operations.deletePlay(id: logged[1].id)
        heldStill("a delete (and its announcement)")
        try operations.setFeeling(trackID: a, .dislike, source: "site")
        heldStill("a dislike")
        #expect(!service.isReady)
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil)
        heldStill("the dashboard's call")
        try service.notNow(trackID: a)
        heldStill("a not now")
        try service.refreshTracks()
        heldStill("a refresh of the tracks (the model's lock)")

        // A request for suggestions waits for the build, and then for the one after it.
        final class Answer: @unchecked Sendable { var uris: Result<[String?], any Error>? }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            answer.uris = Result { try service.recommendations(RecommendationQuery(limit: 2)).suggestions.map(\.track.uri) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "the request waits for the build")
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success, "answered without waiting for the fourth build")
        let uris = try #require(answer.uris).get()
        #expect(uris == ["b.flac"], "the delete is seen (b is no longer just played) and so is the dislike of a")
        #expect(builds.lock.withLock { builds.count } >= 3, "built once more for the delete announced during the rebuild")
        // The change announced during the third build is for the next use: the request did
        // not wait for the fourth build (held), which the dashboard asks for.
        #expect(!service.isReady)
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil)
        releaseFourth.signal()
        let deadline = Date().addingTimeInterval(20)
        while !service.isReady, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(service.isReady, "built in the background for the dashboard")
        #expect(builds.lock.withLock { builds.count } == 4)
    }

    /// An import announces each of its transactions. When past plays changed during a
    /// background build, the next one waits until they have been still for a moment: not a
    /// build after every transaction, each reading the whole history beside the import.
    @Test func backgroundBuildsWaitForChangesToPause() throws {
        let library = try Library(["a.flac": "A", "b.flac": "B"])
        let (bus, service) = (library.bus, library.service)
        // Long beside the 0.2 s between changes below: a slow machine's pauses do not end it.
        service.quietSeconds = 3
        final class Builds: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
        }
        let builds = Builds()
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        service.whileBuilding = {
            guard builds.lock.withLock({ builds.count += 1; return builds.count }) == 1 else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + 20)
        }
        let imported = PacenoteEvent.changed(.playsRewritten(.imported))
        #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil, "not built yet: asked for")
        #expect(entered.wait(timeout: .now() + 10) == .success)
        bus.publish(imported)
        release.signal()
        // A transaction every 0.2 s for 2.4 s, the dashboard viewed after each.
        for _ in 0..<12 {
            Thread.sleep(forTimeInterval: 0.2)
            bus.publish(imported)
            #expect(try service.recommendationsIfReady(RecommendationQuery(limit: 2)) == nil)
        }
        let whileImporting = builds.lock.withLock { builds.count }
        #expect(whileImporting == 1, "\(whileImporting) builds while the changes kept coming")
        let deadline = Date().addingTimeInterval(20)
        while !service.isReady, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(service.isReady, "built once the changes paused")
        #expect(builds.lock.withLock { builds.count } == 2)
    }

    /// Suggestions are kept while nothing they are made from has changed (every dashboard
    /// view asks for them): the same answer twice, then each kind of change — a dislike, a
    /// "not now" (in memory, no commit), a new play — is in the very next answer.
    @Test func aKeptSuggestionFollowsEachChangeOnTheNextRequest() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let titles = ["A", "B", "C", "D"]
        let songs = titles.map { SongInfo(uri: "\($0).flac", tags: ["Title": $0, "Artist": $0 + " Band"], durationSeconds: 200) }
        try store.applyLibrary(player: "default", changed: songs, removed: [], stickers: [:])
        let bus = EventBus()
        let operations = Operations(store: store, events: bus)
        var ids: [String: Int64] = [:]
        for (i, title) in titles.enumerated() {
            ids[title] = try #require(try store.track(uri: "\(title).flac")?.id)
            try operations.setBPM(trackID: ids[title]!, value: 170 - Double(i))  // A fits 170 best, then B, C, D
        }
        var settings = Config.Recommender()
        settings.exploration = 0
        let service = RecommenderService(store: store, settings: settings, heartRate: nil, players: [], endpoint: nil,
                                         playerName: "default", events: bus, logger: Logger(label: "test"))
        let query = RecommendationQuery(limit: 4, mode: .cadence, cadence: 170)
        func order() throws -> [String] {
            try service.recommendations(query).suggestions.map { s in ids.first { $0.value == s.track.id }!.key }
        }
        #expect(try order() == ["A", "B", "C", "D"])
        #expect(try service.recommendations(query) == service.recommendations(query))

        try operations.setFeeling(trackID: ids["A"]!, .dislike, source: "site")
        #expect(try order() == ["B", "C", "D"])

        try service.notNow(trackID: ids["B"]!)
        #expect(try order() == ["C", "D", "B"])

        _ = try operations.recordListens([(track: Track(uri: "D.flac", title: "D", artist: "D Band", durationSeconds: 200),
                                           startedAt: Date().addingTimeInterval(-300), client: nil)], source: "listenbrainz")
        #expect(try order() == ["C", "B"])
    }
}
