import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteWeb

extension RecommenderService {
    /// One answer of `pacenote recommend`, as the API would give it.
    public struct OnceAnswer: Sendable {
        public var suggestions: [Recommender.Suggestion]
        /// The song MPD plays, left out.
        public var current: Recommender.SongRef?
        public var census: Recommender.Census
        public var emptyReason: Recommender.EmptyReason?
        public var note: String?
        /// Why MPD's queue could not be read: then neither its songs nor the one it plays are left out.
        public var queueError: String?
    }

    /// Suggestions made once through the daemon's own path, so that the command leaves out
    /// what the API leaves out (the playing song, the queue, dislikes, recent plays): it
    /// once ranked the playing, queued song first (issue 52). No heart rate: a zone only
    /// when asked for.
    public static func once(config: Config, store: Store, zone: Zone?, cadence: Double?, limit: Int,
                            exploration: Double?, logger: Logger) throws -> OnceAnswer {
        var settings = config.recommender
        if let exploration { settings.exploration = exploration }
        let service = RecommenderService(
            store: store, settings: settings, heartRate: nil, players: [], endpoint: try config.players.first?.endpoint,
            playerName: config.players.first?.name ?? "default", events: nil, logger: logger)
        defer { service.stop() }
        let list = try service.recommendations(RecommendationQuery(zone: zone, limit: limit, mode: cadence == nil ? .zone : .cadence,
                                                                   cadence: cadence))
        return OnceAnswer(suggestions: list.suggestions, current: list.current, census: list.census, emptyReason: list.emptyReason,
                          note: list.note, queueError: list.queueError)
    }
}
