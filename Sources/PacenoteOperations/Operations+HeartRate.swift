import Foundation
import PacenoteCore
import PacenoteStore

/// Heart rate given to plays. The samples, zone settings and workouts are the heart-rate
/// service's own rows; the plays it tags are everyone's: zone charts are read from them.
extension Operations {
    /// Gives every play overlapping [from, to] its heart rate, zone (by `zone`) and workout,
    /// and announces the plays that changed (`.playsTagged`), so a zone chart is fresh right
    /// after. Returns their ids.
    @discardableResult
    public func tagPlays(from: Date, to: Date, zone: (Date, Double) -> Zone) throws -> [Int64] {
        let changed = try store.tagPlays(from: from, to: to, zone: zone)
        if !changed.isEmpty { announce(.playsTagged(ids: changed)) }
        return changed
    }
}
