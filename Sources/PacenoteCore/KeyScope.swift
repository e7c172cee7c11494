/// What an API key may do. Each player or app gets its own key with the least it needs, so
/// a lost phone means revoking one key (`pacenote key revoke NAME`).
///
/// | scope | submit listens, now-playing, heart rate | read history, stats, feedback | send likes | deletes, imports, curation, admin |
/// |---|---|---|---|---|
/// | `submit` | yes | no | no (ListenBrainz feedback only) | no |
/// | `read` | no | yes | no | no |
/// | `client` | yes | yes | yes (and the private session's switch) | no |
/// | `admin` | yes | yes | yes | yes |
public enum KeyScope: String, CaseIterable, Comparable, Sendable {
    /// Send what plays and what is measured: ListenBrainz listens and now-playing, heart-rate
    /// samples. Nothing else: no history, no imports, no queue, no pins, no login.
    case submit
    /// Read what trusted networks read (history, stats, workouts, events, metrics); no writes.
    case read
    /// An app that both scrobbles and reads (Pano Scrobbler, the Jellyfin ListenBrainz plugin,
    /// a page on the owner's own site): what `submit` and `read` may do together, and likes
    /// (a track's feeling, ListenBrainz feedback). No deletes, imports, curation or admin.
    case client
    /// Everything, like the instance's own key (`pacenote key`): writes, imports, the site's login.
    case admin

    /// Sends listens, now-playing, scrobbles and heart rate.
    public var maySubmit: Bool { self != .read }
    /// Reads the history, stats, feedback and health data.
    public var mayRead: Bool { self != .submit }
    /// Sets a track's feeling (a like or dislike) through Pacenote's own API.
    public var mayLike: Bool { self == .client || self == .admin }

    public static func < (a: KeyScope, b: KeyScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
