import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `pacenote plan`: the saved plans (issue 55) — list, show, add in the notation, import a
/// file, export, delete. `pacenote workout start PLAN` runs one.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Saved workout plans: list, show, add, import (JSON, Zwift .zwo, FIT workout), export, delete.",
        discussion: """
            A plan is segments with a duration and a target — a zone, a ramp between zones, a \
            heart-rate range, a cadence or a music tempo — and repeats, written as: \
            '10 min Z2 "warm-up", 6 x [2 min Z5, 3 min Z2], 20 min Z2 -> Z4, open Z1 "cool-down"'. \
            The /plans page and /api/v1/plans edit the same plans. 'pacenote workout start NAME' runs one.
            """,
        subcommands: [ListPlans.self, ShowPlan.self, AddPlan.self, ImportPlan.self, ExportPlan.self, DeletePlan.self],
        defaultSubcommand: ListPlans.self)

    /// The plan named (whatever its case) or numbered `name`.
    static func find(_ name: String, in store: Store) throws -> StoredPlan {
        if let plan = try store.plan(named: name) { return plan }
        if let id = Int64(name), let plan = try store.plan(id: id) { return plan }
        throw Failure("no plan named '\(name)' ('pacenote plan list' shows them)")
    }

    static func open(_ storage: StorageOptions) throws -> Store {
        try PacenoteServer.openStore(config: storage.loadConfig())
    }

    /// Runs `body` with the store and the plan named (or numbered) `name`.
    static func with<T>(_ storage: StorageOptions, plan name: String, _ body: (Store, StoredPlan) throws -> T) throws -> T {
        let store = try open(storage)
        defer { try? store.close() }
        return try body(store, try find(name, in: store))
    }
}

struct ListPlans: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the saved plans: id, name, length, segments, runs.")
    @OptionGroup var storage: StorageOptions

    func run() throws {
        let store = try Plan.open(storage)
        defer { try? store.close() }
        let plans = try store.plans()
        guard !plans.isEmpty else {
            print("no plans; 'pacenote plan add NAME TEXT' or 'pacenote plan import FILE' saves one")
            return
        }
        for p in plans {
            let length = WorkoutPlan.clock(p.plan.fixedSeconds) + (p.plan.isOpenEnded ? " + open" : "")
            print("\(p.id)  \(p.plan.name)  \(length)  \(counted(p.plan.timeline().count, "segment"))  \(counted(p.runs, "run"))")
        }
    }
}

struct ShowPlan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a plan in the notation, then its segments in time.")
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The plan's name or id.") var name: String

    func run() throws {
        let plan = try Plan.with(storage, plan: name) { _, stored in stored.plan }
        print("\(plan.name)\(plan.sport.map { " (\($0))" } ?? ""): \(plan.text)")
        for p in plan.timeline() {
            let length = p.seconds.map(WorkoutPlan.clock) ?? "open"
            print("  \(WorkoutPlan.clock(p.offset))  \(length)  \(p.target.text)\(p.segment.label.map { "  \($0)" } ?? "")")
        }
    }
}

struct AddPlan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Save a plan written in the notation.")
    @OptionGroup var storage: StorageOptions
    @Argument(help: "Its name.") var name: String
    @Argument(help: "Its segments: '10 min Z2, 6 x [2 min Z5, 3 min Z2], open Z1'.") var text: String
    @Option(help: ArgumentHelp("running, cycling, …", valueName: "sport")) var sport: String?

    func run() throws {
        let store = try Plan.open(storage)
        defer { try? store.close() }
        let plan: WorkoutPlan
        do { plan = try WorkoutPlan(name: name, sport: sport, text: text) } catch { throw Failure(error.description) }
        let id = try Operations(store: store, events: nil).savePlan(plan)
        print("saved plan \(id): \(plan.name), \(WorkoutPlan.clock(plan.fixedSeconds))")
    }
}

struct ImportPlan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Save a plan from a file: Pacenote's JSON, a Zwift .zwo or a FIT workout.")
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The file.") var file: String
    @Option(help: ArgumentHelp("A name for a file that has none. Default: the file's name.", valueName: "name")) var name: String?

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw Failure("cannot read \(file)") }
        let fallback = name ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let plan: WorkoutPlan
        do { plan = try WorkoutPlan(file: Array(data), fallbackName: fallback) } catch { throw Failure("\(file): \(error.description)") }
        let store = try Plan.open(storage)
        defer { try? store.close() }
        let id = try Operations(store: store, events: nil).savePlan(plan)
        print("saved plan \(id): \(plan.name), \(WorkoutPlan.clock(plan.fixedSeconds)), \(counted(plan.timeline().count, "segment"))")
    }
}

struct ExportPlan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print a plan as JSON ('pacenote plan import' and the API take it back).")
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The plan's name or id.") var name: String

    func run() throws {
        let plan = try Plan.with(storage, plan: name) { _, stored in stored.plan }
        let data = try JSONSerialization.data(withJSONObject: plan.json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }
}

struct DeletePlan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a saved plan (workouts that ran it keep their copy).")
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The plan's name or id.") var name: String

    func run() throws {
        let plan = try Plan.with(storage, plan: name) { store, plan in
            try Operations(store: store, events: nil).deletePlan(id: plan.id)
            return plan
        }
        print("deleted plan \(plan.id): \(plan.plan.name)")
    }
}
