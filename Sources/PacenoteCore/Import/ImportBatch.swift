/// Listens on their way from an export's reader to the store, as the curation rules left
/// them, in a compact form: a play is a few numbers, and its track is named by a key (the
/// same key for the same artist and title text, over the whole import) and given once, in
/// the batch where the key first appears; which stored track a key is, only the store says. A million plays take 48 MB this way, where `ImportedListen`s with their tracks
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
        /// `matchKey.hashValue` and the recording's, computed on the reader's thread too: the
        /// writer's look-ups of a track met or new take them, and hash no text of their own.
        public var matchKeyHash: Int
        public var recordingHash: Int?
        public var credit: ArtistCredit?
        /// `track.albumIdentity`, computed on the reader's thread too.
        public var album: AlbumIdentity?
    }

    /// A play a hide rule took (`RuleSet`), with its track as the rules left it: written
    /// to `hidden_plays` in the transaction that stores its batch.
    public struct HiddenPlay: Sendable {
        public var track: Track
        public var player: String?
        public var counted: Bool
        public var startedAtMs: Int64
        public var endedAtMs: Int64
        public var playedSeconds: Double
    }

    public var plays: [Play] = []
    public var tracks: [NewTrack] = []
    public var players: [String] = []
    public var hidden: [HiddenPlay] = []
    /// Rules that ran out of steps on this batch's text (a report, noted after it is stored).
    public var overruns: [RuleOverrun] = []

    public init() {}

    public var count: Int { plays.count }
    /// Nothing to store: no plays, hidden or not, and no tracks.
    public var isEmpty: Bool { plays.isEmpty && tracks.isEmpty && hidden.isEmpty }
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
    /// The curation rules in force, applied to each listen before it is batched: an
    /// ignored listen is left out, a hidden one goes to `hidden`, a rewritten one is
    /// batched under its new text. The store sees only what the rules left.
    public let rules: RuleSet

    private var keys: [TrackText: Int32] = [:]
    private var nextKey: Int32 = 0
    private var players: [String: Int32] = [:]
    public private(set) var batch = ImportBatch()

    /// About how many bytes the remembered texts may take (`keys`) before they are
    /// forgotten, between two batches: what the reader holds is then bounded, not by the
    /// file's count of tracks and length of titles. A text met again afterwards is a new
    /// key whose track the store finds again (at most once per text per forgetting). A
    /// library of 150,000 tracks with short titles is ~15 MB here, never forgotten.
    public static let rememberedBytesLimit = 24 << 20
    public let rememberedBytesLimit: Int
    /// The estimate for `keys` (each entry's texts and its slot).
    public private(set) var rememberedBytes = 0

    public init(separators: [String] = [], rules: RuleSet = .empty, rememberedBytesLimit: Int = ImportBatcher.rememberedBytesLimit) {
        self.separators = separators
        self.rules = rules
        self.rememberedBytesLimit = rememberedBytesLimit
    }

    public var count: Int { batch.plays.count }

    public mutating func reserveCapacity(_ n: Int) { batch.plays.reserveCapacity(n) }

    public mutating func add(_ listen: ImportedListen) {
        var listen = listen
        if !rules.isEmpty {
            // Every rewrite, then the ignores and hides with the play's length: as a player's play.
            let outcome = rules.evaluate(listen.track, playedSeconds: listen.playedSeconds, uri: listen.track.uri)
            batch.overruns += outcome.overruns
            switch outcome.decision {
            case .ignore: return
            case .keep(let track):
                // The export's list of artists no longer names a rewritten artist's.
                if track.artist != listen.track.artist { listen.artists = nil }
                listen.track = track
            case .hide(let track, _):
                batch.hidden.append(ImportBatch.HiddenPlay(track: track, player: listen.player, counted: listen.counted,
                                                           startedAtMs: listen.startedAtMs, endedAtMs: listen.endedAtMs,
                                                           playedSeconds: listen.playedSeconds))
                return
            }
        }
        let text = TrackText(artist: listen.track.artist, title: listen.track.title, recording: listen.track.musicBrainz.recording)
        let key: Int32
        if let known = keys[text] {
            key = known
        } else {
            key = nextKey
            nextKey += 1
            keys[text] = key
            rememberedBytes += Self.bytes(of: text)
            let credit = listen.credit(separators: separators)
            var track = listen.track
            // Listed artists (Maloja's) name the album's artist too (`Track.albumIdentity`).
            if let credit, credit.listed { track.listedCredit = credit }
            let matchKey = listen.track.matchKey
            batch.tracks.append(ImportBatch.NewTrack(key: key, track: track, matchKey: matchKey, matchKeyHash: matchKey.hashValue,
                                                     recordingHash: track.musicBrainz.recording?.hashValue, credit: credit,
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
        if rememberedBytes > rememberedBytesLimit {
            keys = [:]
            rememberedBytes = 0
        }
        return full
    }

    /// What a remembered text takes: its slot (a dictionary's, at three quarters full) and
    /// the texts too long to be held in their `String` (over 15 bytes).
    static func bytes(of text: TrackText) -> Int {
        func heap(_ s: String?) -> Int {
            guard let n = s?.utf8.count, n > 15 else { return 0 }
            return (n + 32 + 15) & ~15
        }
        return 80 + heap(text.artist) + heap(text.title) + heap(text.recording)
    }
}
