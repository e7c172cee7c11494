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
        /// The key whose track this one is, as the store would find it among the tracks
        /// this import adds (`ImportBatcher.trackOfNewKey`): this key when it names a
        /// track of its own; -1 when not found (a batcher that does not, `findsOwnTracks`).
        /// Used while the database holds no other tracks.
        public var sameTrackAs: Int32
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
    /// The first key of a track of each recording, and of each match key: the first with or
    /// without a recording, and the first without one (-1: none); what each match key with a
    /// recording was found to be (`trackOfNewKey`).
    private var trackOfRecording: [String: Int32] = [:]
    private var trackOfMatchKey: [String: (first: Int32, bare: Int32)] = [:]
    private var trackOfRecordedIdentity: [RecordedIdentity: Int32] = [:]

    struct RecordedIdentity: Hashable {
        var matchKey: String
        var recording: String
    }
    public private(set) var batch = ImportBatch()

    /// Whether new keys' tracks are found among the import's own (`trackOfNewKey`): only
    /// the store's session of an import into a database without tracks uses them.
    public let findsOwnTracks: Bool

    public init(separators: [String] = [], findsOwnTracks: Bool = true) {
        self.separators = separators
        self.findsOwnTracks = findsOwnTracks
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
            let matchKey = listen.track.matchKey
            batch.tracks.append(ImportBatch.NewTrack(key: key, track: track, matchKey: matchKey, credit: credit,
                                                     album: track.albumIdentity,
                                                     sameTrackAs: findsOwnTracks ? trackOfNewKey(key, matchKey: matchKey, recording: text.recording) : -1))
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

    /// The key whose track a new key's listens go to, when the only tracks stored are those
    /// of this import's earlier keys: the store's look-up (`Store.findTrackIdentities`) done
    /// among them, here on the reader's thread. A recording's track is the first with that
    /// recording, else the first with the match key and no recording; a listen without a
    /// recording goes to the first track with its match key. None: the key is a new track.
    /// As the store's session does, a match key and recording are looked up once: later
    /// keys with both go where the first went (a track of the recording added since
    /// notwithstanding). Without a recording that is what a new look-up would find anyway.
    mutating func trackOfNewKey(_ key: Int32, matchKey: String, recording: String?) -> Int32 {
        guard let recording else {
            // One hash of the match key: read and, for a new one, written in place.
            var found = key
            modify(&trackOfMatchKey[matchKey, default: (first: key, bare: key)]) { found = $0.first }
            return found
        }
        let identity = RecordedIdentity(matchKey: matchKey, recording: recording)
        if let known = trackOfRecordedIdentity[identity] { return known }
        var found = trackOfRecording[recording] ?? -1
        if found < 0 {
            modify(&trackOfMatchKey[matchKey, default: (first: key, bare: -1)]) { found = $0.bare }
        }
        if found < 0 {
            found = key
            trackOfRecording[recording] = key
        }
        trackOfRecordedIdentity[identity] = found
        return found
    }

    private func modify<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }

    /// The batch so far; the next one starts empty (keys go on being numbered).
    public mutating func take() -> ImportBatch {
        let full = batch
        batch = ImportBatch()
        players.removeAll(keepingCapacity: true)
        return full
    }
}
