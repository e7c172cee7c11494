import Foundation

/// Artists and albums as entities with stable ids (`artists`, `albums` in the store): the
/// keys that decide when two spellings are one.
///
/// - An **artist** is a credited name, told apart by the name alone with case and runs of
///   white space folded ("Daft Punk" and "DAFT  PUNK" are one). Accents and punctuation are
///   kept: "Beyonce" and "Beyoncé" stay two until a merge (curation) says otherwise.
/// - An **album** is its MusicBrainz release when the files carry one; else its title with
///   its album artist — or, without an album artist, the track's primary artist, split on the
///   featuring markers only (never on the configurable separators, so that turning `&` on
///   never moves an album). Two "Greatest Hits" by two artists stay apart; an album whose
///   songs feature guests stays one.
///
/// The keys are stored (`artists.name_key`, `albums.album_key`): changing how they fold
/// needs a migration that computes every stored key again, or old rows stop being found.
public enum EntityKey {
    /// The key of an artist's name.
    public static func artist(_ name: String) -> String {
        fold(name)
    }

    /// The key of an album: `mb:` and its release id, or `t:` with its title and artist.
    public static func album(title: String, artist: String?, release: String?) -> String {
        if let release = release.map(fold), !release.isEmpty { return "mb:" + release }
        return "t:" + fold(title) + "\u{1F}" + fold(artist ?? "")
    }

    /// Lower case (Unicode's full mapping), trimmed, each run of white space one space.
    static func fold(_ text: String) -> String {
        var text = text
        if let folded = text.withUTF8({ asciiFold($0) }) { return folded ?? text }
        return foldedByCharacters(text)
    }

    /// `fold` by Swift's Characters: for any text.
    static func foldedByCharacters(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `fold` of ASCII text byte by byte (Unicode's property look-ups per Character were most
    /// of a bulk import's credit parsing): nil when `bytes` is not all ASCII; `.some(nil)`
    /// when the text is its own key (the usual case, which allocates nothing). ASCII's white
    /// space is tab to carriage return and the space.
    static func asciiFold(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        var changes = false
        var previousSpace = true  // a leading space is dropped
        for b in bytes {
            if b >= 0x80 { return nil }
            if b >= 0x41 && b <= 0x5A { changes = true }
            let space = isSpace(b)
            if space && (previousSpace || b != 0x20) { changes = true }
            previousSpace = space
        }
        if previousSpace && !bytes.isEmpty { changes = true }  // a trailing space
        guard changes else { return .some(nil) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        for b in bytes {
            if isSpace(b) {
                pendingSpace = true
                continue
            }
            if pendingSpace && !out.isEmpty { out.append(0x20) }
            pendingSpace = false
            out.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
        }
        return .some(String(decoding: out, as: UTF8.self))
    }
}

/// An album as a track names it: what `EntityKey.album` keys on, and what the album's row
/// shows (as the first of its tracks named it).
public struct AlbumIdentity: Equatable, Hashable, Sendable {
    public var key: String
    public var title: String
    /// The album artist, or the track's primary artist when it has none.
    public var artist: String?
    public var release: String?
}

extension Track {
    /// The album this track is on, or nil when it names none.
    public var albumIdentity: AlbumIdentity? {
        guard let title = album?.trimmingWhitespace(), !title.isEmpty else { return nil }
        let artist = albumArtist?.trimmingWhitespace().nilIfEmpty ?? albumPrimaryArtist
        let release = musicBrainz.release?.trimmingWhitespace().nilIfEmpty
        return AlbumIdentity(key: EntityKey.album(title: title, artist: artist, release: release),
                             title: title, artist: artist, release: release)
    }

    /// The primary artist an album without an album artist goes by: the first listed artist,
    /// or the credit text up to its featuring marker.
    private var albumPrimaryArtist: String? {
        if let listedCredit { return listedCredit.primary.nilIfEmpty }
        guard let text = artist?.trimmingWhitespace(), !text.isEmpty else { return nil }
        return ArtistCredit.parse(artist: text, title: "", separators: []).primary.nilIfEmpty
    }
}
