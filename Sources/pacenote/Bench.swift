import ArgumentParser
import Dispatch
import Foundation
import PacenoteCore

/// `pacenote bench …`: the timings scripts/bench/* print, for parts of Pacenote that no
/// ordinary command runs alone. Hidden from the help: a tool for measuring, not for users.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time parts of Pacenote for scripts/bench.",
        shouldDisplay: false,
        subcommands: [BenchWorkouts.self])
}

/// Times `WorkoutMeasures` on a workout scripts/bench/workouts wrote, and prints the
/// timings and the figures as JSON (the script prints them for people).
struct BenchWorkouts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workouts",
        abstract: "Time the figures of a workout (JSON from scripts/bench/workouts).",
        discussion: """
            The file holds `samples` ([seconds, speed, distance, altitude, cadence, power, latitude, \
            longitude, bpm], null where missing), `plays` ([start, end, title, artist]), `laps` \
            ([start, end]), `start` (Unix seconds), `sport`, `units` and `athlete` ({age, weight, sex}).
            """)

    @Argument(help: "The workout, as JSON.")
    var file: String

    @Option(name: .long, help: "How many times to measure it.")
    var runs = 25

    struct Series: Decodable {
        struct Athlete: Decodable { var age: Double; var weight: Double; var sex: String }
        var start: Double
        var samples: [[Double?]]
        var plays: [[JSONScalar]]
        var laps: [[Double]]
        var sport: String?
        var units: String
        var athlete: Athlete?
    }

    /// A number or a string in the plays' rows.
    enum JSONScalar: Decodable {
        case number(Double), text(String)
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .text(try c.decode(String.self)) }
        }
        var number: Double? { if case .number(let n) = self { n } else { nil } }
        var text: String? { if case .text(let t) = self { t } else { nil } }
    }

    struct Report: Encodable {
        var samples: Int
        var runsMilliseconds: [Double]
        var measures: WorkoutMeasures
    }

    func validate() throws {
        if runs < 1 || runs > 10_000 { throw ValidationError("--runs: 1 to 10,000, not \(runs)") }
    }

    func run() throws {
        let series: Series
        do {
            series = try JSONDecoder().decode(Series.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw Failure("\(file): not a workout series: \(error)")
        }
        let start = Date(timeIntervalSince1970: series.start)
        func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
        var motion: [MotionSample] = [], pulse: [HeartRateSample] = []
        for row in series.samples where row.count == 9 {
            guard let t = row[0] else { continue }
            motion.append(MotionSample(at: at(t), speed: row[1], distance: row[2], altitude: row[3], cadence: row[4], power: row[5],
                                       latitude: row[6], longitude: row[7]))
            if let bpm = row[8] { pulse.append(HeartRateSample(at: at(t), bpm: Int(bpm))) }
        }
        let plays = series.plays.compactMap { row -> WorkoutMeasures.Play? in
            guard row.count == 4, let a = row[0].number, let b = row[1].number else { return nil }
            return .init(start: at(a), end: at(b), title: row[2].text, artist: row[3].text)
        }
        let laps = series.laps.filter { $0.count == 2 }.map { WorkoutLap(start: at($0[0]), end: at($0[1])) }
        let athlete = series.athlete.map {
            WorkoutMeasures.Athlete(age: $0.age, weightKilograms: $0.weight, sex: $0.sex == "female" ? .female : .male)
        }
        let units = WorkoutMeasures.Units(rawValue: series.units) ?? .metric

        var times: [Double] = []
        var measures: WorkoutMeasures?
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            measures = WorkoutMeasures(motion: motion, heartRate: pulse, laps: laps, sport: series.sport, athlete: athlete,
                                       units: units, plays: plays)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let report = Report(samples: motion.count, runsMilliseconds: times, measures: measures!)
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}
