import Foundation
import PacenoteCore
import PacenoteStore

/// Distances, paces, speeds and heights as `[site] units` says: kilometres, metres and km/h,
/// or miles, feet and mph.
struct MeasureFormat {
    let units: WorkoutMeasures.Units

    var distanceUnit: String { units == .metric ? "km" : "mi" }
    var speedUnit: String { units == .metric ? "km/h" : "mph" }

    func distance(_ metres: Double) -> String {
        let value = metres / units.splitMetres
        return String(format: value < 100 ? "%.2f" : "%.1f", value) + " " + distanceUnit
    }

    /// Seconds per kilometre or mile: "5:32 /km".
    func pace(_ seconds: Double) -> String { SiteFormat.clock(seconds) + " /" + distanceUnit }

    func speedValue(_ metresPerSecond: Double) -> Double {
        metresPerSecond * (units == .metric ? 3.6 : 3600 / 1609.344)
    }

    func speed(_ metresPerSecond: Double) -> String { Chart.number(speedValue(metresPerSecond)) + " " + speedUnit }

    func elevation(_ metres: Double) -> String {
        units == .metric ? "\(Int(metres.rounded())) m" : "\(Int((metres / 0.3048).rounded())) ft"
    }

    /// A play's pace against the minutes before it: "+4 %" with the paces, "5:02 → 4:50 /km".
    func playPace(_ e: PaceEffect.Measured) -> (change: String, paces: String) {
        let percent = e.speedChange * 100
        let change = percent.magnitude < 0.5 ? "±0 %" : String(format: "%+.0f %%", percent)
        return (change, SiteFormat.clock(units.splitMetres / e.speedBefore) + " → " + pace(units.splitMetres / e.speedDuring))
    }

    /// A song's effect over its runs: "4 % faster · +3 steps/min · 5 plays, 4 runs".
    func songPace(_ s: PaceEffect.Song) -> String {
        var parts = [PaceEffect.words(s.speedChange)]
        if let c = s.cadenceChange, c.magnitude >= 0.5 { parts.append(String(format: "%+.0f steps/min", c)) }
        parts.append(SiteFormat.plural(s.plays, "play") + ", " + SiteFormat.plural(s.runs, "run"))
        return parts.joined(separator: " · ")
    }

    /// A workout's pace or speed, as its sport reads (`WorkoutMeasures.showsPace`).
    func rate(_ m: WorkoutMeasures) -> String? {
        m.showsPace ? m.averagePace.map(pace) : m.averageSpeed.map(speed)
    }
}

extension API {
    var measureFormat: MeasureFormat { MeasureFormat(units: context.units) }

    /// The figures of a workout with motion, as cards; nothing for heart rate alone (its
    /// figures are the line above).
    func workoutFigures(_ r: WorkoutReading) -> Node {
        guard r.hasMotion else { return .empty }
        let m = r.measures, f = measureFormat
        var facts: [(String, String?)] = [
            ("Distance", m.distance.map(f.distance)),
            ("Moving time", m.moving.map(SiteFormat.clock)),
            ("Elapsed time", SiteFormat.clock(m.elapsed)),
        ]
        if m.showsPace {
            facts += [("Average pace", m.averagePace.map(f.pace)),
                      ("Fastest \(f.distanceUnit == "km" ? "kilometre" : "mile")", m.bestPace.map(SiteFormat.clock))]
        }
        facts += [("Average speed", m.averageSpeed.map(f.speed)), ("Best speed", m.bestSpeed.map(f.speed))]
        facts += [
            ("Elevation gain", m.elevationGain.map(f.elevation)),
            ("Elevation loss", m.elevationLoss.map(f.elevation)),
            ("Cadence", m.averageCadence.map { c in "\(Int(c.rounded())) /min" + (m.maxCadence.map { " (max \(Int($0.rounded())))" } ?? "") }),
            ("Power", m.averagePower.map { p in "\(Int(p.rounded())) W" + (m.maxPower.map { " (max \(Int($0.rounded())))" } ?? "") }),
            ("Calories", m.calories.map { kcal in
                "\(Int(kcal.rounded())) kcal" + (m.caloriesSource == .heartRate ? " (estimate)" : "")
            }),
        ]
        return .el("dl", ["class": "facts", "data-measures": ""]) {
            for (term, value) in facts {
                if let value {
                    Node.el("div") {
                        Node.el("dt") { term }
                        Node.el("dd") { value }
                    }
                }
            }
        }
    }

    /// Pace (or speed) and elevation under the heart-rate chart, with the same song markers.
    func motionChart(_ r: WorkoutReading, title: String) -> Node {
        guard r.hasMotion else { return .empty }
        let points = WorkoutMeasures.series(motion: r.motion, points: 300)
        guard points.contains(where: { $0.speed != nil || $0.altitude != nil }) else { return .empty }
        let heading = (r.measures.showsPace ? "Pace" : "Speed") + " and elevation"
        return .el("section", ["class": "card", "aria-labelledby": "motion-h"]) {
            Node.el("h2", ["id": "motion-h"]) { heading }
            Chart.motion(id: "motion", points: points, from: r.workout.startedAt, to: r.end, format: measureFormat,
                         showsPace: r.measures.showsPace, songs: r.plays.map { ($0.play.startedAt, $0.track.title) },
                         title: "\(heading) during \(title)", timeZone: context.timeZone)
        }
    }

    /// Each kilometre (mile) and each lap the device marked, with the songs that played in it.
    func splitsTables(_ r: WorkoutReading) -> Node {
        let m = r.measures
        guard r.hasMotion, !m.splits.isEmpty || m.laps.count > 1 else { return .empty }
        let tracks = Dictionary(r.plays.compactMap { p in p.track.id.map { ($0, p.track) } }) { a, _ in a }
        let f = measureFormat
        return .el("section", ["class": "card", "aria-labelledby": "splits-h"]) {
            Node.el("h2", ["id": "splits-h"]) { "Splits" }
            if !m.splits.isEmpty { splitsTable(m.splits, first: f.distanceUnit, tracks: tracks, showsPace: m.showsPace, id: "splits") }
            // One lap over the whole workout (the lap button never pressed) says nothing more.
            if m.laps.count > 1 {
                Node.el("h3") { "Laps" }
                splitsTable(m.laps, first: "Lap", tracks: tracks, showsPace: m.showsPace, id: "laps")
            }
        }
    }

    /// Links to the workout as files for another training log (GPX only with positions).
    func workoutExportLinks(_ r: WorkoutReading) -> Node {
        guard !r.during.isEmpty || r.hasMotion else { return .empty }
        let id = r.workout.id
        return .el("p", ["class": "muted small", "data-export": ""]) {
            "Export for Strava, GoldenCheetah or a watch platform: "
            Node.el("a", ["href": url("/api/v1/workouts/\(id)/export.tcx"), "download": ""]) { "TCX" }
            if r.motion.contains(where: { $0.latitude != nil && $0.longitude != nil }) {
                " · "
                Node.el("a", ["href": url("/api/v1/workouts/\(id)/export.gpx"), "download": ""]) { "GPX" }
            }
        }
    }

    private func splitsTable(_ splits: [WorkoutMeasures.Split], first: String, tracks: [Int64: Track], showsPace: Bool,
                             id: String) -> Node {
        let f = measureFormat
        return .el("div", ["class": "table-scroll"]) {
            Node.el("table", ["class": "splits", "data-splits": id]) {
                Node.el("thead") {
                    Node.el("tr") {
                        for h in [first, "Distance", "Time", showsPace ? "Pace" : "Speed", "Avg HR", "Cadence", "Elev.", "Songs"] {
                            Node.el("th", ["scope": "col"]) { h }
                        }
                    }
                }
                Node.el("tbody") {
                    for s in splits {
                        let seconds = s.moving ?? s.elapsed
                        let speed = s.distance.flatMap { d in seconds > 0 ? d / seconds : nil }
                        Node.el("tr") {
                            Node.el("th", ["scope": "row"]) { String(s.number) }
                            Node.el("td") { s.distance.map(f.distance) ?? "–" }
                            Node.el("td") { SiteFormat.clock(s.elapsed) }
                            Node.el("td") { (showsPace ? s.pace.map(SiteFormat.clock) : speed.map(f.speed)) ?? "–" }
                            Node.el("td") { s.averageHeartRate.map { String(Int($0.rounded())) } ?? "–" }
                            Node.el("td") { s.averageCadence.map { String(Int($0.rounded())) } ?? "–" }
                            Node.el("td") { s.elevationChange.map { ($0 >= 0.5 ? "+" : "") + f.elevation($0) } ?? "–" }
                            Node.el("td", ["class": "split-songs"]) {
                                if s.plays.isEmpty { Node.el("span", ["class": "muted"]) { "–" } }
                                for (i, p) in s.plays.enumerated() {
                                    if i > 0 { Node.el("br") }
                                    if let id = p.play.trackID, let track = tracks[id] { trackLink(track) } else { p.play.title ?? "?" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
