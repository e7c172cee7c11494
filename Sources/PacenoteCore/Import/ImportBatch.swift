/// Listens on their way from an export's reader to the store, in a compact form: a play
/// is a few numbers, and its track is named by a key (the same key for the same artist and
/// title text, over the whole import) and given once, in the batch where the key first
/// appears. A million plays take 48 MB this way, where `ImportedListen`s with their tracks
/// take several times that; and the reader's thread, not the store's, does the hashing,
/// the credit parsing and the freeing of the texts.
public struct ImportBatch: Sendable {
    public struct Play: Sendable, Equatable {
        /// The track's key (`tracks` of this batch or of an earlier one).
        public var key: Int32
        /// Index into `players`, or -1.
        public var player: Int32
        /// See `ImportedListen.startPrecisionMs`.
        public var startPrecisionMs: Int32
        public var counted: Bool
        public var startedAtMs: Int64
        public var endedAtMs: Int64
        public var playedSeconds: Double
    }

    /// A key seen for the first time, with the track and credit its first listen gave.
    public struct NewTrack: Sendable {
        public var key: Int32
        public var track: Track
        /// `track.matchKey`, computed on the reader's thread.
        public var matchKey: String
        public var credit: ArtistCredit?
        /// `track.albumIdentity`, computed on the reader's thread too.
        public var album: AlbumIdentity?
    }

    public var plays: [Play] = []
    public var tracks: [NewTrack] = []
    public var players: [String] = []

    public init() {}

    public var count: Int { plays.count }
}

/// Builds `ImportBatch`es from listens, numbering their tracks' texts from 0 over the
/// whole import. Only the first listen of a text is read for its track.
public struct ImportBatcher {
    /// A track's identity in an import: its text, and its MusicBrainz recording id (two
    /// recordings with one artist and title are two tracks).
    struct TrackText: Hashable {
        var artist: String?
        var title: String
        var recording: String?
    }

    /// Extra separators credit text is split with (`[credits] separators`).
    public let separators: [String]

    private var keys: [TrackText: Int32] = [:]
    private var players: [String: Int32] = [:]
    public private(set) var batch = ImportBatch()

    public init(separators: [String] = []) {
        self.separators = separators
    }

    public var count: Int { batch.plays.count }

    public mutating func reserveCapacity(_ n: Int) { batch.plays.reserveCapacity(n) }

    public mutating func add(_ listen: ImportedListen) {
        let text = TrackText(artist: listen.track.artist, title: listen.track.title, recording: listen.track.musicBrainz.recording)
        let key: Int32
        if let known = keys[text] {
            key = known
        } else {
            key = Int32(keys.count)
            keys[text] = key
            let credit = listen.credit(separators: separators)
            var track = listen.track
            // Listed artists (Maloja's) name the album's artist too (`Track.albumIdentity`).
            if let credit, credit.listed { track.listedCredit = credit }
            batch.tracks.append(ImportBatch.NewTrack(key: key, track: track, matchKey: listen.track.matchKey, credit: credit,
                                                     album: track.albumIdentity))
        }
        var player: Int32 = -1
        if let name = listen.player {
            if let known = players[name] {
                player = known
            } else {
                player = Int32(batch.players.count)
                players[name] = player
                batch.players.append(name)
            }
        }
        batch.plays.append(ImportBatch.Play(
            key: key, player: player, startPrecisionMs: Int32(clamping: listen.startPrecisionMs), counted: listen.counted,
            startedAtMs: listen.startedAtMs, endedAtMs: listen.endedAtMs, playedSeconds: listen.playedSeconds))
    }

    /// The batch so far; the next one starts empty (keys go on being numbered).
    public mutating func take() -> ImportBatch {
        let full = batch
        batch = ImportBatch()
        players.removeAll(keepingCapacity: true)
        return full
    }
}
