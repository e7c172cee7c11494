import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteTempo
import PacenoteWeb
import Synchronization

/// Tempo-matched playback (issue 56): renders a song Pacenote queued at the tempo target,
/// pitch kept, off the HTTP and watcher threads, and puts the copy in the song's place in MPD's
/// queue before it plays. The original stays queued until the copy is ready: a render that is
/// late, fails or cannot be played leaves the original to play, and the reason is kept
/// (`recent`, `GET /api/v1/tempo`, the log). The watcher asks `original(of:)` to log a
/// copy's play as a play of the original track.
public final class TempoService: Sendable {
    /// How MPD reaches the copies.
    public enum Access: Equatable, Sendable {
        /// The cache is a folder of MPD's library: queued by their path inside it.
        case folder(relative: String)
        /// MPD's local socket: queued as `file://` URIs.
        case localSocket
    }

    /// One render asked for, as the API shows it (`rendering`, then `queued` or `original`).
    public typealias Render = TempoStatus.Render

    public let settings: Config.Tempo
    public let folder: String
    let quality: TempoQuality
    let cache: TempoCache
    let endpoint: MPDEndpoint
    let configuredMusicDirectory: String?
    let logger: Logger
    private let work = DispatchQueue(label: "pacenote.tempo", qos: .utility)
    private let state = Mutex<(musicDirectory: String??, recent: [Render], originals: [String: SongInfo?])>((nil, [], [:]))

    public init(settings: Config.Tempo, databasePath: String, endpoint: MPDEndpoint, musicDirectory: String?, logger: Logger) throws {
        self.settings = settings
        folder = URL(fileURLWithPath: settings.cacheFolder(databasePath: databasePath)).standardizedFileURL.path
        quality = TempoQuality(rawValue: settings.quality) ?? .balanced
        cache = try TempoCache(directory: folder, maxBytes: Int64(settings.cacheMaxMB) << 20)
        // MPD (often its own user) reads the copies: the folder is readable by all whatever the
        // umask (Pacenote's is 077), as are the copies (below).
        chmod(folder, 0o755)
        self.endpoint = endpoint
        configuredMusicDirectory = musicDirectory
        self.logger = logger
    }

    /// The last renders asked for, newest first.
    public var recent: [Render] { state.withLock { $0.recent } }
    public var cachedCopies: Int { cache.count }
    public var cachedBytes: Int64 { cache.totalBytes }

    /// MPD's music directory: configured, else asked once over the socket.
    var musicDirectory: String? {
        if let known = state.withLock({ $0.musicDirectory }) { return known }
        let found: String?
        if let configuredMusicDirectory {
            found = configuredMusicDirectory
        } else {
            // Kept only when MPD answered: a lookup that failed (MPD restarting) is asked again.
            guard let answer = try? MPDQueue.musicDirectory(endpoint: endpoint) else { return nil }
            found = answer
        }
        let standard = found.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        state.withLock { $0.musicDirectory = .some(standard) }
        return standard
    }

    /// How MPD can play the copies, or why it cannot.
    public func access() -> Result<Access, TempoProblem> {
        Self.access(folder: folder, musicDirectory: musicDirectory, endpoint: endpoint)
    }

    /// The copies in `folder` are a folder of MPD's library when it lies inside MPD's music
    /// directory; elsewhere MPD plays them only as `file://` URIs, sent over its local socket.
    public static func access(folder: String, musicDirectory: String?, endpoint: MPDEndpoint) -> Result<Access, TempoProblem> {
        if let music = musicDirectory, folder.hasPrefix(music + "/") {
            return .success(.folder(relative: String(folder.dropFirst(music.count + 1))))
        }
        if case .unixSocket = endpoint.location { return .success(.localSocket) }
        return .failure(TempoProblem("""
            MPD plays files outside its music directory only over its local socket: set tempo.cache_dir \
            to a folder inside MPD's music directory\(musicDirectory.map { " (\($0))" } ?? ""), or mpd.host to MPD's socket
            """))
    }

    /// Whether `uri` (as MPD names a song) is one of the copies: never mirrored as a track.
    public func isCopy(_ uri: String) -> Bool {
        switch try? access().get() {
        case .folder(let relative): uri.hasPrefix(relative + "/")
        // MPD names a song queued as `file:///path` by its path alone.
        case .localSocket: uri.hasPrefix(folder + "/") || uri.hasPrefix("file://" + folder + "/")
        case nil: false
        }
    }

    /// The original of a copy MPD plays, with the tempo it plays at and the copy's length;
    /// nil when `song` is not a copy (or it was not queued this run and its note is gone: then
    /// it is logged as it is).
    public func original(of song: SongInfo) -> SongInfo? {
        guard isCopy(song.uri) else { return nil }
        let name = (song.uri as NSString).lastPathComponent
        let known = state.withLock { $0.originals[name] }
        guard var original = known ?? rememberOriginal(ofCopyNamed: name) else { return nil }
        original.durationSeconds = song.durationSeconds
        original.lastModified = song.lastModified
        return original
    }

    /// Reads a copy's original from its note in the cache and keeps it in memory, so that a
    /// copy queued this run is logged as its original even if the note is evicted before it
    /// plays (a tiny cache). A copy without a note is remembered as having none.
    @discardableResult
    private func rememberOriginal(ofCopyNamed name: String) -> SongInfo? {
        var original: SongInfo?
        if let meta = cache.metadata(ofFileName: name), let json = meta["song"]?.data(using: .utf8),
           var decoded = try? JSONDecoder().decode(SongInfo.self, from: json), let ratio = meta["ratio"].flatMap(Double.init) {
            decoded.tempo = TempoPlayback(ratio: ratio, playedBPM: meta["played_bpm"].flatMap(Double.init))
            original = decoded
        }
        state.withLock { s in
            if s.originals.count > 256 { s.originals.removeAll() }
            s.originals[name] = .some(original)
        }
        return original
    }

    /// Follows a song Pacenote just queued (MPD's `songID`): when `plan` asks for a change, it is
    /// rendered in the background and swapped in; `swapped` is told the copy's song id.
    public func follow(songID: Int, uri: String, title: String, artist: String?, bpm: Double, plan: TempoStretch.Plan,
                       swapped: @escaping @Sendable (_ old: Int, _ new: Int) -> Void) {
        let render = Render(uri: uri, title: title, artist: artist, bpm: bpm, plan: plan, state: "rendering", reason: nil,
                            reused: false, renderSeconds: nil, askedAt: Date())
        remember(render)
        work.async { [self] in
            var done = render
            do throws(TempoProblem) {
                let (mpdURI, reused, seconds) = try prepare(uri: uri, songID: songID, plan: plan)
                rememberOriginal(ofCopyNamed: (mpdURI as NSString).lastPathComponent)
                done.reused = reused
                done.renderSeconds = seconds
                switch try swap(songID: songID, with: mpdURI) {
                case .replaced(let new):
                    swapped(songID, new)
                    done.state = "queued"
                    logger.info("tempo: queued \(uri) at \(Self.percent(plan.ratio)) (\(String(format: "%.1f", plan.playedBPM)) bpm)\(reused ? ", from the cache" : "")")
                case .alreadyPlaying: throw TempoProblem("the song began before its copy was ready")
                case .gone: throw TempoProblem("the song left the queue before its copy was ready")
                }
            } catch {
                done.state = "original"
                done.reason = error.message
                logger.warning("tempo: \(uri) plays at its own tempo: \(error.message)")
            }
            remember(done)
        }
    }

    /// Waits until every render asked for so far is done (tests, the CLI).
    public func waitUntilIdle() { work.sync {} }

    private func remember(_ render: Render) {
        state.withLock { s in
            s.recent.removeAll { $0.uri == render.uri && $0.askedAt == render.askedAt }
            s.recent.insert(render, at: 0)
            if s.recent.count > 20 { s.recent.removeLast(s.recent.count - 20) }
        }
    }

    /// The copy's URI for MPD, rendered now unless the cache has it.
    private func prepare(uri: String, songID: Int, plan: TempoStretch.Plan) throws(TempoProblem) -> (String, Bool, Double?) {
        let access: Access
        switch self.access() {
        case .success(let a): access = a
        case .failure(let problem): throw problem
        }
        guard let music = musicDirectory else {
            throw TempoProblem("MPD's music directory is unknown: set mpd.music_directory")
        }
        let source = (music as NSString).appendingPathComponent(uri)
        guard let info = try? FileManager.default.attributesOfItem(atPath: source),
              let size = info[.size] as? Int64 else {
            throw TempoProblem("the file \(uri) is not in MPD's music directory any more")
        }
        let modified = (info[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let key = "\(uri)|\(Int64(modified * 1000))|\(size)|\(String(format: "%.4f", plan.ratio))|\(quality.rawValue)|\(settings.click)"
        var reused = true
        var seconds: Double?
        let path: String
        if let hit = cache.lookup(key: key) {
            path = hit.path
        } else {
            reused = false
            guard let song = try? MPDQueue.queuedSong(endpoint: endpoint, songID: songID) else {
                throw TempoProblem("the song left the queue before its copy was ready")
            }
            var tags: [String: String] = [:]
            tags["title"] = song.tag("Title")
            tags["artist"] = song.tag("Artist")
            tags["album"] = song.tag("Album")
            let meta: [String: String] = [
                "uri": uri, "ratio": String(plan.ratio), "played_bpm": String(plan.playedBPM), "bpm": String(plan.playedBPM / plan.ratio),
                "song": String(decoding: (try? JSONEncoder().encode(song)) ?? Data(), as: UTF8.self),
            ]
            let started = Date()
            let click = settings.click
            do {
                path = try cache.insert(key: key, metadata: meta) { destination in
                    // The metronome: a click on each beat aubio finds, where it falls in the copy.
                    let clicks = click ? TempoBeats.clicks(for: try TempoBeats.track(source: source, maxSeconds: 3600).beats, ratio: plan.ratio) : nil
                    _ = try TempoRenderer.render(source: source, destination: destination, tempoRatio: plan.ratio,
                                                 quality: quality, tags: tags, maxSeconds: 3600, clicks: clicks)
                }
            } catch let error as TempoRenderError {
                throw TempoProblem(error.description)
            } catch {
                throw TempoProblem("the copy could not be kept: \(error)")
            }
            seconds = Date().timeIntervalSince(started)
        }
        chmod(path, 0o644)
        switch access {
        case .folder(let relative):
            do { try MPDQueue.update(endpoint: endpoint, path: relative) } catch {
                throw TempoProblem("MPD did not index the copy: \(error.message)")
            }
            return (relative + "/" + (path as NSString).lastPathComponent, reused, seconds)
        case .localSocket:
            return ("file://" + path, reused, seconds)
        }
    }

    private func swap(songID: Int, with uri: String) throws(TempoProblem) -> MPDQueue.Replacement {
        do { return try MPDQueue.replace(endpoint: endpoint, songID: songID, with: uri) } catch {
            throw TempoProblem("MPD refused the copy: \(error.message)")
        }
    }

    static func percent(_ ratio: Double) -> String {
        String(format: "%+.1f %%", (ratio - 1) * 100)
    }
}

/// Why a song plays at its own tempo, in words for the API and the log.
public struct TempoProblem: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension TempoService {
    /// `pacenote tempo render`: one file rendered by hand, and a line on how it went.
    public static func renderFile(source: String, destination: String, ratio: Double, quality: String, click: Bool) throws -> String {
        let clicks = click ? TempoBeats.clicks(for: try TempoBeats.track(source: source, maxSeconds: 4 * 3600).beats, ratio: ratio) : nil
        let result = try TempoRenderer.render(source: source, destination: destination, tempoRatio: ratio,
                                              quality: TempoQuality(rawValue: quality) ?? .balanced, maxSeconds: 4 * 3600, clicks: clicks)
        return String(format: "rendered %.1f s → %.1f s at ×%.4f (%@) in %.2f s (%@)", result.secondsIn, result.secondsOut, ratio,
                      percent(ratio), result.wallSeconds, quality)
    }
}
