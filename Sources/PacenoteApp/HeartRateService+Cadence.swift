import Foundation
import PacenoteCore
import PacenoteWeb

/// Live cadence (issue 56): the steps a minute a footpod, a watch or a phone sends with the
/// heart rate (`cadence` in `POST /api/v1/hr`, `hr-feed`, a Bluetooth footpod), smoothed
/// (`CadenceSmoother`), and what cadence mode follows — the live cadence unless a target is
/// set with the dashboard's −5 / +5. A change the music should follow is announced once
/// (`PacenoteEvent.cadence`): cadence mode switched, a target set, or the live cadence moved
/// `CadenceState.rediscoverSteps` from the one announced last.
struct CadenceControl {
    var smoother = CadenceSmoother()
    var state = CadenceState()
    /// The cadence followed when last announced.
    var announced: Double?
}

extension HeartRateService {
    /// Feeds pushed motion's cadence to the smoother (on `queue`); announces a move.
    func followCadence(_ samples: [MotionSample], source: String) {
        var fed = false
        let now = Date()
        for sample in samples {
            // Readings uploaded late (a watch syncing a run) are stored, not followed.
            guard let spm = sample.cadence, now.timeIntervalSince(sample.at) <= CadenceSmoother.freshFor else { continue }
            cadence.smoother.add(spm, at: sample.at, source: source)
            fed = true
        }
        guard fed else { return }
        announceCadenceIfMoved(now: now)
    }

    /// What cadence mode follows now.
    public func cadenceState(now: Date) -> CadenceState {
        queue.sync { stateOnQueue(now: now) }
    }

    /// Cadence mode on or off, a target, −5 / +5 (`delta`), or back to following the live
    /// cadence (`follow`). Announced.
    public func changeCadence(_ change: CadenceChange, now: Date) -> CadenceState {
        queue.sync {
            var state = stateOnQueue(now: now)
            switch change {
            case .mode(let on): cadence.state.on = on
            case .target(let spm): cadence.state.target = spm.map { min(max($0.rounded(), CadenceState.range.lowerBound), CadenceState.range.upperBound) }
            case .step(let delta):
                cadence.state.target = state.stepped(by: delta)
                cadence.state.on = true
            case .follow: cadence.state.target = nil
            }
            cadence.announced = stateOnQueue(now: now).following.stepsPerMinute
            state = stateOnQueue(now: now)
            events.publish(.cadence(state))
            return state
        }
    }

    private func stateOnQueue(now: Date) -> CadenceState {
        var state = cadence.state
        state.live = cadence.smoother.current(now: now)
        state.announced = cadence.announced
        return state
    }

    private func announceCadenceIfMoved(now: Date) {
        let state = stateOnQueue(now: now)
        let following = state.following.stepsPerMinute
        if let announced = cadence.announced, abs(following - announced) < CadenceState.rediscoverSteps { return }
        cadence.announced = following
        events.publish(.cadence(stateOnQueue(now: now)))
    }
}
