import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import Synchronization

extension Demo {
    /// What the demo does as a listener would, so that the pages of the features that need
    /// a person's action have something to show too: it likes a few songs once MPD's library
    /// is mirrored (the "Liked" playlist in MPD follows), and publishes this month's review
    /// once a few plays have counted. Stepped once a second by the demo's feeder thread.
    final class Tour: Sendable {
        /// Songs liked (by title): two of the loop, one of the library beyond it.
        static let liked = ["Steady State", "Redline", "Lighthouse"]
        /// Counted plays before the review is published: it then has a top song and artist.
        static let playsBeforeReview = 3

        private let server: PacenoteServer
        private let logger: Logger
        private let announce: @Sendable (String) -> Void
        private final class Count: Sendable {
            let value = Atomic<Int>(0)
        }
        private let countedPlays = Count()
        private let subscription: EventBus.Subscription
        private struct Progress {
            var liked = false
            var published = false
        }
        private let progress = Mutex(Progress())

        /// `announce`: prints a line for the person watching (the review's address).
        init(server: PacenoteServer, logger: Logger, announce: @escaping @Sendable (String) -> Void) {
            self.server = server
            self.logger = logger
            self.announce = announce
            let counted = countedPlays
            subscription = server.events.subscribe { [counted] event in
                if case .playLogged(_, let play, _) = event, play.counted { counted.value.add(1, ordering: .relaxed) }
            }
        }

        deinit { server.events.unsubscribe(subscription) }

        /// Does what is due; true once everything is done.
        func step() -> Bool {
            var state = progress.withLock { $0 }
            if !state.liked { state.liked = likeSongs() }
            if !state.published, countedPlays.value.load(ordering: .relaxed) >= Self.playsBeforeReview {
                state.published = publishReview()
            }
            progress.withLock { $0 = state }
            return state.liked && state.published
        }

        /// True once the songs are liked (false while MPD's library is not mirrored yet).
        private func likeSongs() -> Bool {
            let songs = Demo.library.filter { Self.liked.contains($0.title) }
            do {
                var ids: [Int64] = []
                for song in songs {
                    guard let id = try server.store.track(uri: song.uri)?.id else { return false }
                    ids.append(id)
                }
                // As the site's ♡ would: the demo stands in for the person clicking it.
                try Operations(store: server.store, events: server.events)
                    .setFeelings(ids.map { (trackID: $0, feeling: Feeling.like) }, source: "site")
                logger.info("demo: liked \(songs.map { "“\($0.title)”" }.joined(separator: ", ")); MPD's playlist “\(server.config.likes.playlist)” follows")
            } catch {
                logger.error("demo: cannot like the songs: \(error)")
            }
            return true
        }

        private func publishReview() -> Bool {
            do {
                let path = try server.publishReview(range: "month")
                let host = server.config.http.host.contains(":") ? "[\(server.config.http.host)]" : server.config.http.host
                announce("Pacenote demo: this month's review is published at http://\(host):\(server.port)\(path)")
            } catch {
                logger.error("demo: cannot publish the review: \(error)")
            }
            return true
        }
    }
}
