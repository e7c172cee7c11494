import Foundation
@testable import PacenoteCore
import Testing

/// FIT files built byte by byte, as Garmin's protocol lays them out.
struct FITBuilder {
    var data: [UInt8] = []

    static func le(_ v: UInt32, _ size: Int = 4) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func be(_ v: UInt32, _ size: Int = 4) -> [UInt8] { Array(le(v, size).reversed()) }

    /// A definition: fields as (number, size, base type); developer fields as (number, size, index).
    mutating func define(local: UInt8, global: UInt16, _ fields: [(UInt8, UInt8, UInt8)], bigEndian: Bool = false,
                         developer: [(UInt8, UInt8, UInt8)] = []) {
        data.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
        data += [0, bigEndian ? 1 : 0]
        data += bigEndian ? Self.be(UInt32(global), 2) : Self.le(UInt32(global), 2)
        data.append(UInt8(fields.count))
        for f in fields { data += [f.0, f.1, f.2] }
        if !developer.isEmpty {
            data.append(UInt8(developer.count))
            for f in developer { data += [f.0, f.1, f.2] }
        }
    }

    mutating func message(local: UInt8, _ fields: [UInt8]...) { data.append(local); for f in fields { data += f } }

    /// A compressed-timestamp data message: local type 0–3, seconds 0–31.
    mutating func compressed(local: UInt8, offset: UInt8, _ fields: [UInt8]...) {
        data.append(0x80 | local << 5 | offset)
        for f in fields { data += f }
    }

    /// The whole file: header (with its CRC when 14 bytes), data, the file's CRC.
    func file(headerSize: Int = 14) -> [UInt8] {
        var out: [UInt8] = [UInt8(headerSize), 0x20] + Self.le(2195, 2) + Self.le(UInt32(data.count)) + Array(".FIT".utf8)
        if headerSize == 14 { out += Self.le(UInt32(FITFile.crc16(out)), 2) }
        out += data
        return out + Self.le(UInt32(FITFile.crc16(out)), 2)
    }

    /// file_id (type), a record layout with an unknown field and a developer field, records
    /// each second, a lap and a session.
    static func activity(type: UInt8 = 4, start: UInt32 = 1_100_000_000, seconds: Int = 5, sport: UInt8 = 1) -> FITBuilder {
        var b = FITBuilder()
        b.define(local: 0, global: 0, [(0, 1, 0x00), (1, 2, 0x84)])
        b.message(local: 0, [type], le(1, 2))
        b.define(local: 1, global: 20, [(253, 4, 0x86), (3, 1, 0x02), (4, 1, 0x02)], developer: [(0, 2, 0)])
        for i in 0..<seconds {
            b.message(local: 1, le(start + UInt32(i)), [i == 2 ? 0xFF : UInt8(120 + i)], [80], [0xAB, 0xCD])
        }
        b.define(local: 2, global: 19, [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86)])
        b.message(local: 2, le(start + UInt32(seconds)), le(start), le(UInt32(seconds * 1000)))
        b.define(local: 3, global: 18, [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86), (5, 1, 0x00), (6, 1, 0x00)])
        b.message(local: 3, le(start + UInt32(seconds)), le(start), le(UInt32(seconds * 1000)), [sport], [0])
        return b
    }
}

@Suite struct FITFileTests {
    static let start: UInt32 = 1_100_000_000
    static func date(_ fit: UInt32) -> Date { Date(timeIntervalSince1970: Double(fit) + 631_065_600) }

    func decode(_ bytes: [UInt8]) -> Result<FITActivity, FITError> { Result { () throws(FITError) in try FITFile.decode(bytes) } }

    @Test func readsRecordsLapsAndTheSession() throws {
        for headerSize in [14, 12] {
            let file = FITBuilder.activity().file(headerSize: headerSize)
            #expect(FITFile.isFIT(file))
            let a = try FITFile.decode(file)
            #expect(a.fileType == 4)
            #expect(a.records.map(\.at) == (0..<5).map { Self.date(Self.start + UInt32($0)) })
            #expect(a.records.map(\.heartRate) == [120, 121, nil, 123, 124])
            #expect(a.sessions == [.init(sport: 1, subSport: 0, start: Self.date(Self.start), elapsed: 5)])
            #expect(a.laps == [.init(start: Self.date(Self.start), elapsed: 5)])
            #expect(a.sportName == "running")
        }
    }

    @Test func fitTimeStartsAtTheEndOf1989() {
        #expect(Self.date(0) == ISO8601DateFormatter().date(from: "1989-12-31T00:00:00Z"))
    }

    @Test func namesSports() {
        #expect(FITSport.name(2) == "cycling")
        #expect(FITSport.name(4) == "fitness_equipment")
        #expect(FITSport.name(200) == "sport_200")
        #expect(FITSport.title("fitness_equipment") == "Fitness equipment")
    }

    @Test func compressedTimestampsCountFromTheLastFullOne() throws {
        var b = FITBuilder()
        b.define(local: 0, global: 0, [(0, 1, 0)])
        b.message(local: 0, [4])
        // 1_100_000_000 ends in binary 00000: start from 27 past it, so that the offsets roll over.
        let base = Self.start + 27
        b.define(local: 1, global: 20, [(253, 4, 0x86), (3, 1, 0x02)])
        b.message(local: 1, FITBuilder.le(base), [100])
        b.define(local: 2, global: 20, [(3, 1, 0x02)])
        b.compressed(local: 2, offset: 29, [101])
        b.compressed(local: 2, offset: 31, [102])
        b.compressed(local: 2, offset: 3, [103])  // 3 < 31: the next 32-second window
        let a = try FITFile.decode(b.file())
        #expect(a.records.map(\.at) == [base, base + 2, base + 4, base + 8].map(Self.date))
        #expect(a.records.map(\.heartRate) == [100, 101, 102, 103])
    }

    /// Compressed timestamps cost a byte or two a record: a flood of one second is one
    /// record, and a file of more seconds than two days' worth is refused (issue 51).
    @Test func aFloodOfRecordsIsCollapsedOrRefused() throws {
        func flood(_ count: Int, step: (Int) -> UInt8) -> [UInt8] {
            var b = FITBuilder()
            b.define(local: 0, global: 0, [(0, 1, 0)])
            b.message(local: 0, [4])
            b.define(local: 1, global: 20, [(253, 4, 0x86), (3, 1, 0x02)])
            b.message(local: 1, FITBuilder.le(Self.start), [100])
            b.define(local: 2, global: 20, [(3, 1, 0x02)])
            for i in 0..<count { b.compressed(local: 2, offset: step(i), [120]) }
            return b.file()
        }
        // 300,000 records of the first second: one record, its heart rate the first one's.
        let same = try FITFile.decode(flood(300_000) { _ in 0 })
        #expect(same.records == [.init(at: Self.date(Self.start), heartRate: 100)])
        // Alternating between two seconds: each change is a record, and there are too many.
        #expect(decode(flood(FITFile.maxRecords + 1) { UInt8($0 % 2) }) == .failure(.tooManyRecords(limit: FITFile.maxRecords)))
        #expect(FITError.tooManyRecords(limit: FITFile.maxRecords).description.contains("not imported"))
        // Up to the limit is read.
        #expect(try FITFile.decode(flood(FITFile.maxRecords - 1) { UInt8(($0 + 1) % 32) }).records.count == FITFile.maxRecords)
    }

    @Test func readsBigEndianDefinitions() throws {
        var b = FITBuilder()
        b.define(local: 0, global: 0, [(0, 1, 0)], bigEndian: true)
        b.message(local: 0, [4])
        b.define(local: 1, global: 20, [(253, 4, 0x86), (3, 1, 0x02)], bigEndian: true)
        b.message(local: 1, FITBuilder.be(Self.start), [150])
        b.define(local: 2, global: 18, [(2, 4, 0x86), (5, 1, 0)], bigEndian: true)
        b.message(local: 2, FITBuilder.be(Self.start), [2])
        let a = try FITFile.decode(b.file())
        #expect(a.records == [.init(at: Self.date(Self.start), heartRate: 150)])
        #expect(a.sessions.first?.start == Self.date(Self.start) && a.sportName == "cycling")
    }

    @Test func rejectsTruncatedFiles() {
        let file = FITBuilder.activity().file()
        guard case .failure(.truncated(let declared, let present)) = decode(Array(file.dropLast(10))) else {
            Issue.record("\(decode(Array(file.dropLast(10))))")
            return
        }
        #expect(declared == file.count - 16 && present == file.count - 24)
        #expect(decode(Array(file.prefix(7))) == .failure(.tooShort(bytes: 7)))
        #expect(FITError.truncated(declared: 10, present: 4).description.hasPrefix("truncated FIT file"))
    }

    @Test func rejectsFlippedBits() {
        var file = FITBuilder.activity().file()
        file[40] ^= 0x04
        guard case .failure(.fileCRC) = decode(file) else { Issue.record("\(decode(file))"); return }
        var header = FITBuilder.activity().file()
        header[2] ^= 0x01
        guard case .failure(.headerCRC) = decode(header) else { Issue.record("\(decode(header))"); return }
        #expect(FITError.fileCRC(stored: 0x1234, computed: 0xABCD).description
            == "corrupt FIT file: the file's CRC is 0x1234, its bytes give 0xABCD")
    }

    @Test func aZeroHeaderCRCIsNotChecked() throws {
        var file = FITBuilder.activity().file()
        file[12] = 0; file[13] = 0
        // The file's CRC covers the header, so it is made again.
        let body = Array(file.dropLast(2))
        file = body + FITBuilder.le(UInt32(FITFile.crc16(body)), 2)
        #expect(try FITFile.decode(file).records.count == 5)
    }

    @Test func rejectsOtherSignaturesAndLayouts() {
        var file = FITBuilder.activity().file()
        file[9] = UInt8(ascii: "X")
        #expect(!FITFile.isFIT(file))
        #expect(decode(file) == .failure(.notFIT))
        file = FITBuilder.activity().file()
        file[0] = 13
        #expect(decode(file) == .failure(.badHeaderSize(13)))
    }

    @Test func rejectsUndefinedLocalTypesAndMessagesPastTheEnd() {
        var b = FITBuilder()
        b.define(local: 0, global: 0, [(0, 1, 0)])
        b.message(local: 0, [4])
        b.message(local: 5, [1, 2, 3])
        #expect(decode(b.file()) == .failure(.undefinedLocalType(5, offset: 14 + 11)))

        var c = FITBuilder()
        c.define(local: 0, global: 0, [(0, 1, 0)])
        c.message(local: 0, [4])
        c.define(local: 1, global: 20, [(253, 4, 0x86), (3, 250, 0x0D)])
        c.message(local: 1, FITBuilder.le(Self.start), [1, 2])
        guard case .failure(.pastEnd) = decode(c.file()) else { Issue.record("\(decode(c.file()))"); return }
        // A definition whose field list is cut off.
        var d = FITBuilder()
        d.data = [0x40, 0, 0, 20, 0, 200, 253, 4]
        guard case .failure(.pastEnd) = decode(d.file()) else { Issue.record("\(decode(d.file()))"); return }
    }

    @Test func onlyActivitiesAreWorkouts() {
        #expect(decode(FITBuilder.activity(type: 1).file()) == .failure(.notActivity(type: 1)))
        var b = FITBuilder()
        b.define(local: 0, global: 20, [(253, 4, 0x86)])
        b.message(local: 0, FITBuilder.le(Self.start))
        #expect(decode(b.file()) == .failure(.noFileID))
    }

    @Test func chainedFilesAreReadInTurn() throws {
        let file = FITBuilder.activity(seconds: 3).file() + FITBuilder.activity(start: Self.start + 100, seconds: 2).file()
        #expect(try FITFile.decode(file).records.count == 5)
    }

    @Test func isToldFromItsContent() {
        let file = FITBuilder.activity().file()
        #expect(ImportFileKind.detect(head: file) == .fit)
        #expect(ImportFileKind.detect(head: file).map(\.isWorkout) == true)
        #expect(ImportFileKind.detect(head: Array(file.prefix(11))) == nil)
    }
}
