import Foundation
import Testing
@testable import PacenoteCore

@Suite struct BackupIntervalTests {
    @Test(arguments: [
        ("daily", 86_400.0), ("DAILY", 86_400), ("hourly", 3600), ("weekly", 604_800), ("24h", 86_400), (" 6h ", 21_600),
        ("90m", 5400), ("30s", 30), ("1s", 1), ("2d", 172_800), ("1w", 604_800), ("1.5h", 5400), ("0.5s", -1),
        ("0s", -1), ("-1h", -1), ("h", -1), ("12", -1), ("every day", -1), ("", -1), ("nan s", -1), ("1e400s", -1),
    ])
    func parses(text: String, seconds: Double) {
        let interval = BackupInterval(parsing: text)
        if seconds < 0 {
            #expect(interval == nil, "\(text)")
        } else {
            #expect(interval == .every(seconds: seconds), "\(text)")
        }
    }

    @Test func offAndNeverTurnItOff() {
        #expect(BackupInterval(parsing: "off") == .off)
        #expect(BackupInterval(parsing: "Never") == .off)
        #expect(BackupInterval.off.seconds == nil)
    }

    @Test(arguments: ["daily", "hourly", "weekly", "6h", "90m", "30s", "2d", "2w", "off", "1.5h", "1000s"])
    func describesItselfInAFormThatReadsBack(text: String) throws {
        let interval = try #require(BackupInterval(parsing: text))
        #expect(BackupInterval(parsing: interval.description) == interval)
        #expect(interval.description.count <= max(text.count, 5))
    }

    @Test func describesInTheLargestWholeUnit() {
        #expect(BackupInterval.every(seconds: 86_400).description == "daily")
        #expect(BackupInterval.every(seconds: 172_800).description == "2d")
        #expect(BackupInterval.every(seconds: 5400).description == "90m")
        #expect(BackupInterval.every(seconds: 7200).description == "2h")
        #expect(BackupInterval.every(seconds: 45).description == "45s")
    }
}

@Suite struct BackupNameTests {
    private let date = Date(timeIntervalSince1970: 1_767_323_045.75)  // 2026-01-02T03:04:05.75Z

    @Test func namesSayWhenInUTCAndWhy() throws {
        #expect(BackupName(date: date).fileName == "pacenote-20260102-030405.sqlite")
        #expect(BackupName(date: date, sequence: 2).fileName == "pacenote-20260102-030405-2.sqlite")
        #expect(BackupName(date: date, kind: .beforeMigration).fileName == "pacenote-20260102-030405-before-migration.sqlite")
        #expect(BackupName.stamp(date) == "20260102-030405")
    }

    @Test func namesReadBack() throws {
        for name in [BackupName(date: date), BackupName(date: date, sequence: 3), BackupName(date: date, kind: .beforeMigration),
                     BackupName(date: date, kind: .beforeMigration, sequence: 2)] {
            #expect(BackupName(fileName: name.fileName) == name)
        }
        let read = try #require(BackupName(fileName: "pacenote-20260102-030405.sqlite"))
        #expect(read.date == Date(timeIntervalSince1970: 1_767_323_045))
    }

    @Test(arguments: [
        "pacenote.sqlite", "pacenote-20260102-030405.sqlite.partial", "pacenote-20260102-030405.db",
        "pacenote-2026012-030405.sqlite", "pacenote-20261302-030405.sqlite", "pacenote-20260230-030405.sqlite",
        "pacenote-20260102-250405.sqlite", "pacenote-20260102-030405-1.sqlite", "pacenote-20260102-030405-x.sqlite",
        "pacenote-20260102-030405-before.sqlite", "other-20260102-030405.sqlite", "pacenote-２０２６0102-030405.sqlite",
    ])
    func otherFilesAreNotBackups(name: String) {
        #expect(BackupName(fileName: name) == nil)
    }
}

@Suite struct BackupPolicyTests {
    private let now = Date(timeIntervalSince1970: 1_767_323_045)
    private let daily = BackupInterval.every(seconds: 86_400)

    @Test func dueWhenThereIsNoneOrTheLastIsOld() {
        #expect(BackupPolicy.isDue(last: nil, now: now, interval: daily))
        #expect(!BackupPolicy.isDue(last: now.addingTimeInterval(-86_399), now: now, interval: daily))
        #expect(BackupPolicy.isDue(last: now.addingTimeInterval(-86_400), now: now, interval: daily))
        #expect(!BackupPolicy.isDue(last: nil, now: now, interval: .off))
        #expect(!BackupPolicy.isDue(last: now.addingTimeInterval(-10 * 86_400), now: now, interval: .off))
        // The clock went back a day: the "last" backup is in the future; take one now.
        #expect(BackupPolicy.isDue(last: now.addingTimeInterval(86_400), now: now, interval: daily))
        #expect(!BackupPolicy.isDue(last: now.addingTimeInterval(30), now: now, interval: daily))
    }

    @Test func looksAgainWhenTheNextIsDueWithinBounds() {
        #expect(BackupPolicy.nextCheck(last: now.addingTimeInterval(-86_390), now: now, interval: daily) == 10)
        #expect(BackupPolicy.nextCheck(last: now, now: now, interval: daily) == 60)
        #expect(BackupPolicy.nextCheck(last: now.addingTimeInterval(-100_000), now: now, interval: daily) == 1)
        #expect(BackupPolicy.nextCheck(last: now, now: now, interval: .every(seconds: 2)) == 2)
        #expect(BackupPolicy.nextCheck(last: nil, now: now, interval: daily) == 60)
    }

    @Test func prunesTheOldestRegularBackupsBeyondKeep() {
        let names = (0..<10).map { BackupName(date: now.addingTimeInterval(Double($0) * 86_400)) }
            + [BackupName(date: now.addingTimeInterval(9 * 86_400), sequence: 2)]
            + [BackupName(date: now.addingTimeInterval(-86_400), kind: .beforeMigration)]
        let pruned = BackupPolicy.toPrune(names.shuffled(), keep: 7)
        // 11 regular (two on the last day): the 4 oldest go, oldest first; before-migration stays.
        #expect(pruned == Array(names.prefix(4)))
        #expect(BackupPolicy.toPrune(names, keep: 11).isEmpty)
        #expect(BackupPolicy.toPrune(names, keep: 100).isEmpty)
        #expect(BackupPolicy.toPrune(names, keep: 1).count == 10)
        #expect(!BackupPolicy.toPrune(names, keep: 1).contains(names[10]))  // the newest: same second, sequence 2
        #expect(BackupPolicy.toPrune([], keep: 7).isEmpty)
    }
}
