import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import Synchronization

/// Keeps MPD in step with the likes: the `[likes] playlist` holds the liked songs (newest
/// first) and each song's `feeling` sticker says like or dislike. Follows the write path's
/// `.trackFeeling` announcements, and checks the table every few seconds for what another
/// process wrote (`pacenote import`) or what MPD missed while it was away. All MPD work is
/// on one serial queue, off the request path; MPD's errors are logged, never thrown.
public final class LikesSync: Sendable {
    private let store: Store
    private let endpoint: MPDEndpoint
    private let playlist: String
    private let logger: Logger
    private let events: EventBus?
    private let queue = DispatchQueue(label: "pacenote.likes")
    private struct State {
        /// `Store.feelingsVersion()` as last written to MPD ("" to write again).
        var version = ""
        var subscription: EventBus.Subscription?
        var stickersRefused = false
        var playlistFailure: String?
    }
    private let state = Mutex(State())
    // nonisolated(unsafe): a dispatch source is thread-safe; resumed in start, cancelled in stop.
    private nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pacenote.likes-timer"))

    public init(store: Store, endpoint: MPDEndpoint, settings: Config.Likes, events: EventBus?, logger: Logger) {
        self.store = store
        self.endpoint = endpoint
        self.playlist = settings.playlist
        self.events = events
        self.logger = logger
    }

    /// Writes everything once, then follows changes.
    public func start(checkEvery seconds: Double = 5) {
        if let events {
            let token = events.subscribe { [weak self] event in
                if case .changed(.trackFeeling(let ids), _) = event { self?.schedule(ids) }
            }
            state.withLock { $0.subscription = token }
        }
        queue.async { [self] in write(stickersFor: nil) }
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.queue.async { self.writeIfChanged() }
        }
        timer.resume()
    }

    public func stop() {
        if let token = state.withLock({ $0.subscription.take() }) { events?.unsubscribe(token) }
        timer.cancel()
        queue.sync {}
    }

    private func schedule(_ ids: [Int64]) {
        queue.async { [self] in write(stickersFor: ids) }
    }

    private func writeIfChanged() {
        guard let version = try? store.feelingsVersion(), version != state.withLock({ $0.version }) else { return }
        write(stickersFor: nil)
    }

    /// The playlist, then the stickers of `ids` (every song with a feeling when nil); a
    /// refused playlist (MPD without a `playlist_directory`) still lets the stickers through.
    private func write(stickersFor ids: [Int64]?) {
        let version = (try? store.feelingsVersion()) ?? ""
        do {
            if !playlist.isEmpty {
                let uris = try store.likedLibraryURIs()
                try MPDLikes.replacePlaylist(endpoint: endpoint, name: playlist, uris: uris)
                logger.debug("likes: playlist \(playlist) has \(uris.count) songs")
            }
            state.withLock { $0.version = version }
        } catch {
            // Said once per kind of failure, then retried quietly with every check.
            let first = state.withLock { s in defer { s.playlistFailure = "\(error)" }; return s.playlistFailure != "\(error)" }
            if first { logger.warning("likes: cannot write the playlist \(playlist) to MPD: \(error)") }
            // MPD away: tried again at the next check. MPD refusing (no playlist_directory): not until the likes change.
            let refused = (error as? MPDError).map { !$0.isFatal } ?? false
            state.withLock { $0.version = refused ? version : "" }
        }
        do {
            try MPDLikes.setFeelings(endpoint: endpoint, try store.feelingURIs(ids))
        } catch {
            // Stickers need MPD's sticker_file: said once, then quietly.
            let first = state.withLock { s in defer { s.stickersRefused = true }; return !s.stickersRefused }
            if first { logger.notice("likes: MPD keeps no feeling stickers (\(error)); the playlist still follows the likes") }
        }
    }
}
