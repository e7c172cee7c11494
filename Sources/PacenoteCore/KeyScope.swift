/// What an API key may do. Each player or app gets its own key with the least it needs, so
/// a lost phone means revoking one key (`pacenote key revoke NAME`).
public enum KeyScope: String, CaseIterable, Comparable, Sendable {
    /// Send what plays and what is measured: ListenBrainz listens and now-playing, heart-rate
    /// samples. Nothing else: no history, no imports, no queue, no pins, no login.
    case submit
    /// Read what trusted networks read (history, stats, workouts, events, metrics); no writes.
    case read
    /// Everything, like the instance's own key (`pacenote key`): writes, imports, the site's login.
    case admin

    public static func < (a: KeyScope, b: KeyScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
