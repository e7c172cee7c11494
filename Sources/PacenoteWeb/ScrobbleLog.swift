import Foundation
import PacenoteCore
import Synchronization

/// What the scrobbling protocols (ListenBrainz, Audioscrobbler 2.0 and 1.2) leave in memory:
/// the last submissions with their outcome, so that a user whose player "does not
/// scrobble" can see why (`GET /api/v1/submissions`, `/submissions`), and what other
/// players announce as playing now. Kept in memory only: a restart forgets both.
public final class ScrobbleState: Sendable {
    public struct Entry: Equatable, Sendable {
        public var at: Date
        /// `listenbrainz`, `audioscrobbler2` or `audioscrobbler1.2`.
        public var protocolName: String
        /// What was asked: `submit`, `now_playing`, `login`, `handshake`.
        public var action: String
        public var client: String?
        public var user: String?
        /// `ok`, `partial` (some ignored), `refused`, `failed`.
        public var outcome: String
        public var accepted: Int
        public var ignored: Int
        public var reason: String?
    }

    public static let capacity = 300
    /// How long another player's now-playing lasts without a word: its duration, else 10 min.
    public static let nowPlayingDefault: TimeInterval = 600

    private let state = Mutex<(entries: [Entry], next: Int, playing: [String: (NowPlaying, expires: Date)])>(([], 0, [:]))

    /// The time of day (the web layer's clock).
    let clock: WebClock

    public init(clock: WebClock) {
        self.clock = clock
    }

    /// Notes one submission (the oldest beyond `capacity` is dropped).
    public func record(_ entry: Entry) {
        state.withLock { s in
            if s.entries.count < Self.capacity {
                s.entries.append(entry)
            } else {
                s.entries[s.next] = entry
            }
            s.next = (s.next + 1) % Self.capacity
        }
    }

    /// The submissions kept, newest first.
    public func entries() -> [Entry] {
        state.withLock { s in
            guard s.entries.count == Self.capacity else { return s.entries.reversed() }
            return Array((s.entries[s.next...] + s.entries[..<s.next]).reversed())
        }
    }

    /// Another player's now-playing, until its song would have ended.
    public func nowPlaying(_ playing: NowPlaying) {
        let expires = playing.at.addingTimeInterval(playing.duration.map { min($0, Self.nowPlayingDefault * 6) } ?? Self.nowPlayingDefault)
        state.withLock { $0.playing[playing.player] = (playing, expires) }
    }

    /// The player's scrobble ends its now-playing.
    public func played(player: String) {
        _ = state.withLock { $0.playing.removeValue(forKey: player) }
    }

    /// Other players' now-playing that has not expired, by player name.
    public func playingElsewhere(now given: Date? = nil) -> [NowPlaying] {
        let now = given ?? clock.now()
        return state.withLock { s in
            s.playing = s.playing.filter { $0.value.expires > now }
            return s.playing.values.map(\.0).sorted { $0.player < $1.player }
        }
    }
}
