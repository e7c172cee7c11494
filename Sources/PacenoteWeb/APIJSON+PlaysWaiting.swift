import Foundation

extension APIJSON {
    /// `plays_waiting` in the status (trusted callers): plays from MPD the database could not
    /// take yet (a full disk), kept in the spool and retried.
    static func playsWaiting(_ waiting: (count: Int, lastError: String?, since: Date?)?) -> JSONValue {
        .object([
            ("count", .int(Int64(waiting?.count ?? 0))),
            ("last_error", .optional(waiting?.lastError)),
            ("since", timestamp(waiting?.since)),
        ])
    }
}
