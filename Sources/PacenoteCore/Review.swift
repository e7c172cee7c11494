import Foundation

/// A year (or any period) in music and heart rate: what `/review` and `/api/v1/review`
/// show, filled by the store from the rollups (`Store.review`). Plays are counted plays;
/// seconds are listening time (skips' included, as in the charts).
public struct ReviewReport: Equatable, Sendable {
    public var period: ReviewPeriod
    public var totals: Totals
    /// The period before's totals (`period.previous`), nil for all time.
    public var previous: Totals?
    public var discoveries: Discoveries
    public var topTracks: Ranked
    public var topArtists: Ranked
    public var topAlbums: Ranked
    /// The period's genres (a play counts for each genre of its track), shown with the artists.
    public var topGenres: Ranked
    /// Each month's most played track (in the days of the month the period holds).
    public var months: [MonthTop]
    /// The track played most often in a single day.
    public var bestDay: DayTop?
    /// The longest run of days with music within the period.
    public var longestStreak: Streak?
    /// Counted plays and listening time per local hour, 0–23.
    public var clock: [Slot]
    /// The same per weekday, in the week's order (`weekStart` first).
    public var weekdays: [Slot]
    public var weekStart: Int
    /// The song of each day with one (a pin, or the most played), in order.
    public var songsOfTheDay: [DaySong]
    /// Only when the period has workouts or plays with a heart-rate zone.
    public var heartRate: HeartRate?

    public init(period: ReviewPeriod, totals: Totals, previous: Totals?, discoveries: Discoveries, topTracks: Ranked,
                topArtists: Ranked, topAlbums: Ranked, months: [MonthTop], bestDay: DayTop?, longestStreak: Streak?,
                clock: [Slot], weekdays: [Slot], weekStart: Int, songsOfTheDay: [DaySong], heartRate: HeartRate?,
                topGenres: Ranked = Ranked(byPlays: [], byTime: [])) {
        self.topGenres = topGenres
        self.period = period
        self.totals = totals
        self.previous = previous
        self.discoveries = discoveries
        self.topTracks = topTracks
        self.topArtists = topArtists
        self.topAlbums = topAlbums
        self.months = months
        self.bestDay = bestDay
        self.longestStreak = longestStreak
        self.clock = clock
        self.weekdays = weekdays
        self.weekStart = weekStart
        self.songsOfTheDay = songsOfTheDay
        self.heartRate = heartRate
    }

    /// A favourite is a track or artist with at least this many counted plays before the
    /// year it was not heard in.
    public static let comebackMinimumPlays = 5

    public struct Totals: Equatable, Sendable {
        public var plays: Int
        public var skips: Int
        public var seconds: Double
        /// Local days with at least one counted play.
        public var days: Int
        /// Distinct tracks, artists and albums with a counted play.
        public var tracks: Int
        public var artists: Int
        public var albums: Int

        public init(plays: Int, skips: Int, seconds: Double, days: Int, tracks: Int, artists: Int, albums: Int) {
            self.plays = plays
            self.skips = skips
            self.seconds = seconds
            self.days = days
            self.tracks = tracks
            self.artists = artists
            self.albums = albums
        }

        /// The change from `before` as a fraction (0.25: a quarter more), nil when before was 0.
        public static func change(_ now: Double, from before: Double) -> Double? {
            before == 0 ? nil : (now - before) / before
        }
    }

    /// A track, artist or album with its counted plays and listening time in the period.
    public struct Item: Equatable, Sendable {
        /// The track's, artist's or album's id.
        public var id: Int64
        /// A track's or album's title, an artist's name.
        public var name: String
        /// A track's artist (as tagged), an album's album artist.
        public var artist: String?
        /// The track, in a list of tracks.
        public var track: Track?
        public var plays: Int
        public var seconds: Double

        public init(id: Int64, name: String, artist: String? = nil, track: Track? = nil, plays: Int, seconds: Double) {
            self.id = id
            self.name = name
            self.artist = artist
            self.track = track
            self.plays = plays
            self.seconds = seconds
        }

        public static func track(_ t: Track, plays: Int, seconds: Double) -> Item {
            Item(id: t.id ?? 0, name: t.title, artist: t.artist, track: t, plays: plays, seconds: seconds)
        }
    }

    /// A chart by counted plays and one by listening time.
    public struct Ranked: Equatable, Sendable {
        public var byPlays: [Item]
        public var byTime: [Item]

        public init(byPlays: [Item], byTime: [Item]) {
            self.byPlays = byPlays
            self.byTime = byTime
        }
    }

    public struct Discoveries: Equatable, Sendable {
        /// Tracks whose first counted play ever is in the period, and their counted plays in it.
        public var newTracks: Int
        public var newTrackPlays: Int
        /// Artists whose first counted play ever (of any track crediting them) is in the period.
        public var newArtists: Int
        /// The new tracks and artists most played in the period (the first: the best new find).
        public var topNewTracks: [Item]
        public var topNewArtists: [Item]
        /// Favourites heard again: no counted play in the year before the period, at least
        /// `comebackMinimumPlays` before that, and played in the period.
        public var comebackTracks: [Comeback]
        public var comebackArtists: [Comeback]

        public init(newTracks: Int, newTrackPlays: Int, newArtists: Int, topNewTracks: [Item], topNewArtists: [Item],
                    comebackTracks: [Comeback], comebackArtists: [Comeback]) {
            self.newTracks = newTracks
            self.newTrackPlays = newTrackPlays
            self.newArtists = newArtists
            self.topNewTracks = topNewTracks
            self.topNewArtists = topNewArtists
            self.comebackTracks = comebackTracks
            self.comebackArtists = comebackArtists
        }

        /// The share of the period's counted plays that were of new tracks.
        public func newShare(of plays: Int) -> Double { plays == 0 ? 0 : Double(newTrackPlays) / Double(plays) }
    }

    public struct Comeback: Equatable, Sendable {
        /// Plays and time in the period.
        public var item: Item
        /// The last day it was heard before (more than a year before the period).
        public var lastHeard: String
        /// Its counted plays before that year.
        public var playsBefore: Int

        public init(item: Item, lastHeard: String, playsBefore: Int) {
            self.item = item
            self.lastHeard = lastHeard
            self.playsBefore = playsBefore
        }
    }

    public struct MonthTop: Equatable, Sendable {
        /// `YYYY-MM`.
        public var month: String
        /// The month's counted plays in the period.
        public var plays: Int
        public var top: Item?

        public init(month: String, plays: Int, top: Item?) {
            self.month = month
            self.plays = plays
            self.top = top
        }
    }

    public struct DayTop: Equatable, Sendable {
        public var day: String
        public var item: Item

        public init(day: String, item: Item) {
            self.day = day
            self.item = item
        }
    }

    public struct Streak: Equatable, Sendable {
        public var from: String
        public var to: String
        public var days: Int

        public init(from: String, to: String, days: Int) {
            self.from = from
            self.to = to
            self.days = days
        }

        /// The longest run of consecutive day numbers (ascending) — the first of the longest.
        public static func longest(_ dayNumbers: [Int]) -> Streak? {
            var best: (start: Int, length: Int)?
            var start = 0, length = 0, previous: Int?
            for n in dayNumbers {
                if let p = previous, n == p + 1 { length += 1 } else { start = n; length = 1 }
                if length > (best?.length ?? 0) { best = (start, length) }
                previous = n
            }
            return best.map { Streak(from: ReviewPeriod.text($0.start), to: ReviewPeriod.text($0.start + $0.length - 1), days: $0.length) }
        }
    }

    /// An hour of the day or a weekday: counted plays and listening time.
    public struct Slot: Equatable, Sendable {
        /// The hour (0–23) or the ISO weekday (1 Monday … 7 Sunday).
        public var key: Int
        public var plays: Int
        public var seconds: Double

        public init(key: Int, plays: Int, seconds: Double) {
            self.key = key
            self.plays = plays
            self.seconds = seconds
        }
    }

    public struct DaySong: Equatable, Sendable {
        public var day: String
        public var track: Track
        /// Its counted plays that day.
        public var plays: Int
        public var pinned: Bool

        public init(day: String, track: Track, plays: Int, pinned: Bool) {
            self.day = day
            self.track = track
            self.plays = plays
            self.pinned = pinned
        }
    }

    public struct HeartRate: Equatable, Sendable {
        /// Workouts that began in the period and have ended.
        public var workouts: Int
        public var trainingSeconds: Double
        /// Their time in zones Z0–Z5.
        public var zoneSeconds: [Double]
        public var hardest: WorkoutItem?
        /// The tracks that lifted the heart rate most on average in the period's workouts.
        public var powerSongs: [PowerSong]
        /// Zones Z0–Z5: what was played in each (plays that have that zone).
        public var zones: [ZoneMusic]
        /// The workouts' training load (Banister's TRIMP, `TRIMP.byZone`) in Z0–Z5; empty when
        /// none has one stored.
        public var loadByZone: [Double]
        /// The songs that made you faster in the period's runs (`PaceEffect`), fastest first:
        /// those with enough measured plays in the period.
        public var fasterSongs: [FasterSong]

        public init(workouts: Int, trainingSeconds: Double, zoneSeconds: [Double], hardest: WorkoutItem?,
                    powerSongs: [PowerSong], zones: [ZoneMusic], loadByZone: [Double] = [], fasterSongs: [FasterSong] = []) {
            self.workouts = workouts
            self.trainingSeconds = trainingSeconds
            self.zoneSeconds = zoneSeconds
            self.hardest = hardest
            self.powerSongs = powerSongs
            self.zones = zones
            self.loadByZone = loadByZone
            self.fasterSongs = fasterSongs
        }

        /// A workout's training load: seconds in each zone weighted by the zone's number
        /// (Z1 once, Z5 five times), in minutes.
        public static func load(zoneSeconds: [Double]) -> Double {
            zoneSeconds.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element } / 60
        }
    }

    public struct WorkoutItem: Equatable, Sendable {
        public var id: Int64
        public var day: String
        public var name: String?
        public var sport: String?
        public var seconds: Double
        public var heartRateAverage: Double?
        public var heartRateMax: Int?
        public var load: Double

        public init(id: Int64, day: String, name: String?, sport: String?, seconds: Double, heartRateAverage: Double?,
                    heartRateMax: Int?, load: Double) {
            self.id = id
            self.day = day
            self.name = name
            self.sport = sport
            self.seconds = seconds
            self.heartRateAverage = heartRateAverage
            self.heartRateMax = heartRateMax
            self.load = load
        }
    }

    public struct PowerSong: Equatable, Sendable {
        /// `plays`: the plays a lift was measured for (skips included).
        public var item: Item
        /// The average heart-rate lift in bpm (`HeartRateLift`).
        public var lift: Double

        public init(item: Item, lift: Double) {
            self.item = item
            self.lift = lift
        }
    }

    public struct FasterSong: Equatable, Sendable {
        /// `plays`: the plays measured (`PaceEffect.Song.plays`).
        public var item: Item
        public var effect: PaceEffect.Song

        public init(item: Item, effect: PaceEffect.Song) {
            self.item = item
            self.effect = effect
        }
    }

    public struct ZoneMusic: Equatable, Sendable {
        public var zone: Int
        /// Counted plays in this zone and their listening time (skips' included).
        public var plays: Int
        public var seconds: Double
        /// Its most played tracks.
        public var tracks: [Item]
        /// The average tempo of its counted plays whose track has a BPM, and how many those were.
        public var bpm: Double?
        public var bpmPlays: Int

        public init(zone: Int, plays: Int, seconds: Double, tracks: [Item], bpm: Double?, bpmPlays: Int) {
            self.zone = zone
            self.plays = plays
            self.seconds = seconds
            self.tracks = tracks
            self.bpm = bpm
            self.bpmPlays = bpmPlays
        }
    }
}

/// What a published review shows: the owner ticks the parts. Heart rate is health data and
/// is shown only when ticked; everything else is ticked unless the owner says otherwise.
public enum ReviewSection: String, CaseIterable, Equatable, Hashable, Sendable {
    case totals
    case tracks = "top_tracks"
    case artists = "top_artists"
    case albums = "top_albums"
    case discoveries
    /// Each month's number one, the most played in a day, the longest streak.
    case highlights
    /// The listening clock and the weekdays.
    case clock
    case songsOfTheDay = "songs_of_the_day"
    case heartRate = "heart_rate"

    /// What a share shows when the owner names nothing: all but heart rate.
    public static let defaults: Set<ReviewSection> = Set(allCases).subtracting([.heartRate])

    /// Names (`top_tracks,heart_rate`) as a set, or the first unknown name.
    public static func parse(_ names: [String]) -> Result<Set<ReviewSection>, ReviewSectionError> {
        var out = Set<ReviewSection>()
        for name in names {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let section = ReviewSection(rawValue: trimmed) else { return .failure(ReviewSectionError(name: trimmed)) }
            out.insert(section)
        }
        return .success(out)
    }

    /// In the order of `allCases`, comma-separated (how a share stores them).
    public static func text(_ sections: Set<ReviewSection>) -> String {
        allCases.filter(sections.contains).map(\.rawValue).joined(separator: ",")
    }
}

public struct ReviewSectionError: Error, Equatable, Sendable {
    public var name: String
}

/// A published review: its token (the public address), the period's days and what it shows.
public struct ReviewShare: Equatable, Sendable {
    public var token: String
    public var from: String
    /// The period's last day (a year's 31 December while it is under way: the share follows it).
    public var to: String
    public var sections: Set<ReviewSection>
    public var createdAt: Date
    /// What strangers see, fixed at publishing; nil for a share published before v24 (taken
    /// when it is first shown).
    public var snapshot: ReviewSnapshot?

    public init(token: String, from: String, to: String, sections: Set<ReviewSection>, createdAt: Date, snapshot: ReviewSnapshot? = nil) {
        self.token = token
        self.from = from
        self.to = to
        self.sections = sections
        self.createdAt = createdAt
        self.snapshot = snapshot
    }

    /// A token: 16 random bytes, base64url without padding (22 characters).
    public static func newToken() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether `text` could be a token (before any look-up).
    public static func isToken(_ text: String) -> Bool {
        text.count == 22 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 }
    }
}
