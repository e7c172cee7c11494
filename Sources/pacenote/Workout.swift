import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore

/// `pacenote workout`: a planned workout on the running server — start a plan, press next,
/// pause, resume, stop, and where it is. The workout lives in the daemon, so these go
/// through its API (with the admin key), as the dashboard's buttons do.
struct WorkoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Start a saved plan on the running server, move through it, stop it.",
        subcommands: [StartWorkout.self, WorkoutStatus.self, NextSegment.self, PausePlan.self, ResumePlan.self, StopWorkout.self],
        defaultSubcommand: WorkoutStatus.self)

    struct Connection: ParsableArguments {
        @OptionGroup var storage: StorageOptions
        @Option(help: ArgumentHelp("The server. Default: the configured server.http.", valueName: "url")) var url: String?

        func client() throws -> ServerClient {
            try ServerClient(config: storage.loadConfig(), url: url, environment: ProcessInfo.processInfo.environment)
        }
    }

    /// The workout in progress (the newest one, if it has not ended).
    static func current(_ client: ServerClient) throws -> Int64 {
        let list = try client.send("GET", "api/v1/workouts?limit=1")
        guard let first = (list["workouts"] as? [[String: Any]])?.first, first["in_progress"] as? Bool == true,
              let id = (first["id"] as? NSNumber)?.int64Value else {
            throw Failure("no workout in progress ('pacenote workout start PLAN' starts one)")
        }
        return id
    }

    /// "Segment 3 of 23: 2:00 Z5 (1:12 left) · next: 3:00 Z2".
    static func describe(_ progress: [String: Any]) -> String {
        func segment(_ value: Any?) -> String? {
            guard let s = value as? [String: Any], let target = s["target_text"] as? String else { return nil }
            let length = (s["seconds"] as? NSNumber).map { WorkoutPlan.clock($0.intValue) } ?? "open"
            return "\(length) \(target)" + ((s["label"] as? String).map { " \"\($0)\"" } ?? "")
        }
        let name = progress["name"] as? String ?? "plan"
        guard let current = segment(progress["current"]), let index = ((progress["current"] as? [String: Any])?["index"] as? NSNumber)?.intValue else {
            return "\(name): done"
        }
        var line = "\(name): segment \(index + 1), \(current)"
        if let left = progress["segment_remaining_s"] as? NSNumber { line += " (\(WorkoutPlan.clock(left.intValue)) left)" }
        if progress["paused"] as? Bool == true { line += ", paused" }
        if let next = segment(progress["next"]) { line += " · next: \(next)" }
        return line
    }
}

struct StartWorkout: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a workout following a saved plan (the workout in progress takes it, if any).")
    @OptionGroup var connection: WorkoutCommand.Connection
    @Argument(help: "The plan's name or id ('pacenote plan list').") var plan: String

    func run() throws {
        let client = try connection.client()
        let plans = try client.send("GET", "api/v1/plans")["plans"] as? [[String: Any]] ?? []
        guard let found = plans.first(where: { ($0["name"] as? String)?.caseInsensitiveCompare(plan) == .orderedSame })
                ?? plans.first(where: { ($0["id"] as? NSNumber)?.stringValue == plan }),
              let id = (found["id"] as? NSNumber)?.int64Value else {
            throw Failure("no plan named '\(plan)' ('pacenote plan list' shows them)")
        }
        let progress = try client.send("POST", "api/v1/plans/\(id)/start")
        print("workout \((progress["workout_id"] as? NSNumber)?.stringValue ?? "?") started. " + WorkoutCommand.describe(progress))
    }
}

struct WorkoutStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Where the planned workout in progress is.")
    @OptionGroup var connection: WorkoutCommand.Connection

    func run() throws {
        let client = try connection.client()
        print(WorkoutCommand.describe(try client.send("GET", "api/v1/workouts/\(try WorkoutCommand.current(client))/plan")))
    }
}

/// A press of the runner's: `next`, `pause` or `resume`, as the dashboard's buttons.
protocol PlanPress: ParsableCommand {
    static var kind: PlanProgress.Mark.Kind { get }
    var connection: WorkoutCommand.Connection { get }
}

extension PlanPress {
    func run() throws {
        let client = try connection.client()
        let id = try WorkoutCommand.current(client)
        print(WorkoutCommand.describe(try client.send("POST", "api/v1/workouts/\(id)/plan", json: ["action": Self.kind.rawValue])))
    }
}

struct NextSegment: PlanPress {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "End the plan's segment now (an open-ended one ends no other way).")
    static let kind = PlanProgress.Mark.Kind.next
    @OptionGroup var connection: WorkoutCommand.Connection
}

struct PausePlan: PlanPress {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Stop the plan's clock (the workout goes on recording).")
    static let kind = PlanProgress.Mark.Kind.pause
    @OptionGroup var connection: WorkoutCommand.Connection
}

struct ResumePlan: PlanPress {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Start the plan's clock again.")
    static let kind = PlanProgress.Mark.Kind.resume
    @OptionGroup var connection: WorkoutCommand.Connection
}

struct StopWorkout: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "End the workout in progress.")
    @OptionGroup var connection: WorkoutCommand.Connection

    func run() throws {
        let client = try connection.client()
        let id = try WorkoutCommand.current(client)
        _ = try client.send("POST", "api/v1/workouts/\(id)/stop")
        print("workout \(id) stopped")
    }
}
