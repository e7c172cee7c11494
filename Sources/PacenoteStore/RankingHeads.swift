import GRDB

/// The year and month rollups' ranking indexes (`…_top` by plays, `…_by_time` by time) hold
/// only each period's head (declared with each rollup: `Rollup.Order`, `Rollups.all`): the rows with at least `plays` counted plays, or at least
/// `seconds` of listening. (Migration v18 made them so, and indexed the years' skip-only
/// rows for `chartedCount`; the totals' indexes hold every row.)
///
/// Why: listening is skewed, so most of a period's rows are one play of a track (or artist,
/// album) in the long tail — 79 % of the month rows of tracks at 5M plays. A chart reads a
/// prefix of the best rows, a few hundred deep at most, and never reaches them at that size;
/// yet each was two B-tree entries that every import wrote (and sorted again when it set the
/// indexes aside: 7.3 of the 8.7 s after a 5M import's plays were stored) and every play of
/// the daemon's moved. With the heads only, the 12 indexes hold 3.2M entries instead of
/// 12.5M at 5M plays, and the database is 15 % smaller.
///
/// A list is read in the index's order as its head (through the index) and then, if the
/// head was shorter than what was asked, its tail (the period's rows, sorted: a few hundred
/// at 100k plays, and read at 5M only by charts thousands deep). Ties come in id order in
/// both, as the index gives them.
enum RankingHeads {
    /// The fewest counted plays a row has in a period's index by plays.
    static let plays = 2
    /// The least listening time, in seconds, a row has in a period's index by time.
    static let seconds = 600

    /// The condition of a head row of `order` (`alias.` before the column: `"r."` or `""`).
    /// A literal: SQLite uses a partial index only for a query whose WHERE repeats its condition.
    static func head(_ order: ChartOrder, _ alias: String = "") -> String {
        order == .plays ? "\(alias)plays >= \(plays)" : "\(alias)played_s >= \(seconds)"
    }

    /// The condition of a tail row of `order`: by plays only rows with plays (as the index's
    /// readers ask), by time every row.
    static func tail(_ order: ChartOrder, _ alias: String = "") -> String {
        order == .plays ? "\(alias)plays > 0 AND \(alias)plays < \(plays)" : "\(alias)played_s < \(seconds)"
    }
}

/// The day rollups' heads (v21): an index of each day's rows of tracks, artists and albums
/// with at least `plays` counted plays, by plays — 6 % of the rows at 5M plays.
///
/// Why: a range of a few days only (this week) was summed whole from every row of its days,
/// ~520 rows of each entity a day at 5M plays, where its chart's head is a few dozen of
/// them: this week read 2.4–2.7 ms p99 at 5M plays against 1.0 at 100k. An entry in no
/// head of a day has at most `plays - 1` there, so the heads bound the rest
/// (`Store.fromDayHeads`).
///
/// Named `…_top` as the years' and months' are, so a large import sets them aside and builds
/// them after (`DeferredIndexes`): a 5M-play import took 3 % longer with them (new/old wall
/// 1.033, 5 pairs), where keeping them live cost 5 % (1.05, 4 pairs). While they are set
/// aside, charts of days sum them whole.
enum DayHeads {
    /// The fewest counted plays a day's row has in its head.
    static let plays = 3

    static func indexName(_ entity: Store.ChartEntity) -> String { "rollup_day_\(entity.rawValue)_top" }
}
