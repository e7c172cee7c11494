import CZlib
import Foundation

/// A zip file read for an import (ListenBrainz's export is one), written for files from
/// strangers: the central directory is read and checked before any entry is inflated, an
/// entry is inflated as a stream (never whole, never to disk) and stops the moment it gives
/// more than its directory said, and entries are chosen by their names as data, never as
/// patterns. Zip64 is read; encrypted entries, split archives and methods other than stored
/// and deflate are refused. Layout: PKWARE's APPNOTE.TXT 6.3.10, sections 4.3 and 4.5.
///
/// (Not ZIPFoundation 0.9.20: on Linux its inflate loops forever once a deflate stream runs
/// into the end of the file, which a 150-byte upload can arrange.)
struct ZipArchive {
    struct Entry {
        /// The name as stored (UTF-8, or read as UTF-8 when the zip does not say).
        let name: String
        let method: UInt16
        let flags: UInt16
        let crc: UInt32
        let compressedSize: Int64
        let uncompressedSize: Int64
        let localHeaderOffset: Int64
        /// Where the entry's data begins (after its local header).
        let dataOffset: Int64

        var isDirectory: Bool { name.hasSuffix("/") }
        /// The name with control characters shown as escapes, for messages and the log.
        var printableName: String { ZipArchive.printable(name) }
        var quotedName: String { "\"" + printableName + "\"" }
    }

    /// What an import reads at most from one zip.
    struct Limits: Sendable {
        var entries = 10_000
        /// The entries read, inflated, together.
        var totalBytes: Int64 = 2 << 30
        /// Inflated size over compressed size, for entries over `ratioFloor`: text such as
        /// an export's JSON shrinks 5 to 20 times; a bomb (one byte repeated) ~1,000 times.
        var ratio: Int64 = 100
        var ratioFloor: Int64 = 1 << 20
        /// The central directory, read whole.
        var directoryBytes: Int64 = 16 << 20
    }

    /// A zip that is refused (the reason says why) or found damaged while reading.
    struct Refusal: Error, CustomStringConvertible, Sendable {
        let description: String
    }

    let size: Int64
    let entries: [Entry]
    /// Reads at an offset into the buffer; fewer bytes only at the end of the file.
    let readAt: (Int64, UnsafeMutableRawBufferPointer) throws -> Int

    /// Reads and checks the central directory (count, sizes, where each entry lies).
    init(size: Int64, limits: Limits = Limits(),
         readAt: @escaping (Int64, UnsafeMutableRawBufferPointer) throws -> Int) throws(Refusal) {
        self.size = size
        self.readAt = readAt
        // End of central directory record (4.3.16): 22 bytes and a comment of up to 64 KiB.
        let tailLength = Int(min(size, 22 + 65_535))
        let tail = try Self.read(readAt, at: size - Int64(tailLength), count: tailLength)
        var eocd: Int?
        var i = tail.count - 22
        while i >= 0 {
            if Self.u32(tail, i) == 0x0605_4B50, i + 22 + Int(Self.u16(tail, i + 20)) <= tail.count { eocd = i; break }
            i -= 1
        }
        guard let eocd else { throw Refusal(description: "not a readable zip file (no central directory)") }
        let eocdOffset = size - Int64(tailLength) + Int64(eocd)
        var count = Int64(Self.u16(tail, eocd + 10))
        var directorySize = Int64(Self.u32(tail, eocd + 12))
        var directoryOffset = Int64(Self.u32(tail, eocd + 16))
        let disks = (Self.u16(tail, eocd + 4), Self.u16(tail, eocd + 6))
        var directoryEnd = eocdOffset
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // Zip64 end of central directory locator (4.3.15), then the record (4.3.14).
            guard eocdOffset >= 20 else { throw Refusal(description: "not a readable zip file (no zip64 directory)") }
            let locator = try Self.read(readAt, at: eocdOffset - 20, count: 20)
            guard Self.u32(locator, 0) == 0x0706_4B50 else { throw Refusal(description: "not a readable zip file (no zip64 directory)") }
            let recordOffset = Int64(bitPattern: Self.u64(locator, 8))
            guard recordOffset >= 0, recordOffset <= eocdOffset - 20 - 56 else { throw Refusal(description: "not a readable zip file (bad zip64 directory)") }
            let record = try Self.read(readAt, at: recordOffset, count: 56)
            guard Self.u32(record, 0) == 0x0606_4B50 else { throw Refusal(description: "not a readable zip file (bad zip64 directory)") }
            guard Self.u32(record, 16) == 0, Self.u32(record, 20) == 0 else { throw Refusal(description: "a zip split over several files is not read") }
            count = Int64(clamping: Self.u64(record, 32))
            directorySize = Int64(clamping: Self.u64(record, 40))
            directoryOffset = Int64(clamping: Self.u64(record, 48))
            directoryEnd = recordOffset
        } else if disks != (0, 0) {
            throw Refusal(description: "a zip split over several files is not read")
        }
        guard count <= limits.entries else {
            throw Refusal(description: "the zip holds \(count) entries; at most \(limits.entries) are read")
        }
        guard directorySize <= limits.directoryBytes else {
            throw Refusal(description: "the zip's directory is \(Self.mib(directorySize)); at most \(Self.mib(limits.directoryBytes)) is read")
        }
        // Compared without adding: a zip64 offset near Int64.max must not overflow (a trap).
        guard directoryOffset >= 0, directorySize >= 0, directoryOffset <= directoryEnd,
              directorySize <= directoryEnd - directoryOffset else {
            throw Refusal(description: "not a readable zip file (its directory lies outside it)")
        }
        let directory = try Self.read(readAt, at: directoryOffset, count: Int(directorySize))
        var entries: [Entry] = []
        var at = 0
        for _ in 0..<count {
            // Central directory header (4.3.12): 46 bytes, the name, the extra field, the comment.
            guard at + 46 <= directory.count, Self.u32(directory, at) == 0x0201_4B50 else {
                throw Refusal(description: "not a readable zip file (damaged directory)")
            }
            let nameLength = Int(Self.u16(directory, at + 28)), extraLength = Int(Self.u16(directory, at + 30))
            let commentLength = Int(Self.u16(directory, at + 32))
            let end = at + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { throw Refusal(description: "not a readable zip file (damaged directory)") }
            var compressed = UInt64(Self.u32(directory, at + 20)), uncompressed = UInt64(Self.u32(directory, at + 24))
            var offset = UInt64(Self.u32(directory, at + 42))
            // Zip64 extended information (4.5.3): only the fields whose 32-bit value is all ones, in this order.
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = Self.u16(directory, extra), length = Int(Self.u16(directory, extra + 2))
                var field = extra + 4
                let fieldEnd = min(field + length, extraEnd)
                if id == 0x0001 {
                    if uncompressed == 0xFFFF_FFFF, field + 8 <= fieldEnd { uncompressed = Self.u64(directory, field); field += 8 }
                    if compressed == 0xFFFF_FFFF, field + 8 <= fieldEnd { compressed = Self.u64(directory, field); field += 8 }
                    if offset == 0xFFFF_FFFF, field + 8 <= fieldEnd { offset = Self.u64(directory, field); field += 8 }
                }
                extra += 4 + length
            }
            // Offsets and compressed sizes lie within the file; inflated sizes are summed
            // against a limit in `check` (all stay far from overflowing).
            guard offset < UInt64(size), compressed <= UInt64(size), uncompressed < UInt64(1) << 62 else {
                throw Refusal(description: "not a readable zip file (damaged directory)")
            }
            let name = String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            // The local header (4.3.7) says how long its own name and extra field are.
            let local = try Self.read(readAt, at: Int64(offset), count: 30, partial: true)
            guard local.count == 30, Self.u32(local, 0) == 0x0403_4B50 else {
                throw Refusal(description: "not a readable zip file (entry \"\(Self.printable(name))\" is missing)")
            }
            let dataOffset = Int64(offset) + 30 + Int64(Self.u16(local, 26)) + Int64(Self.u16(local, 28))
            entries.append(Entry(name: name, method: Self.u16(directory, at + 10), flags: Self.u16(directory, at + 8),
                                 crc: Self.u32(directory, at + 16), compressedSize: Int64(compressed),
                                 uncompressedSize: Int64(uncompressed), localHeaderOffset: Int64(offset), dataOffset: dataOffset))
            at = end
        }
        // Entries lie one after another before the directory: overlapping entries (the
        // trick behind the largest zip bombs) are refused.
        var previousEnd: Int64 = 0
        for entry in entries.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard entry.localHeaderOffset >= previousEnd, entry.dataOffset <= directoryOffset,
                  entry.compressedSize <= directoryOffset - entry.dataOffset else {
                throw Refusal(description: "entries of the zip overlap or lie outside it: a zip bomb is not read")
            }
            previousEnd = entry.dataOffset + entry.compressedSize
        }
        self.entries = entries
    }

    /// Checks the entries an import is about to read, before any is inflated: methods,
    /// encryption, and the sizes their directory gives (which reading then holds them to).
    func check(_ chosen: [Entry], limits: Limits = Limits()) throws(Refusal) {
        var total: Int64 = 0
        for entry in chosen {
            let name = entry.quotedName
            guard entry.flags & 1 == 0 else { throw Refusal(description: "entry \(name) is encrypted") }
            guard entry.method == 0 || entry.method == 8 else {
                throw Refusal(description: "entry \(name) is compressed with method \(entry.method); only stored and deflate are read")
            }
            if entry.uncompressedSize > limits.ratioFloor, entry.uncompressedSize / max(entry.compressedSize, 1) > limits.ratio {
                throw Refusal(description: "entry \(name) would inflate from \(Self.mib(entry.compressedSize)) to \(Self.mib(entry.uncompressedSize)), "
                              + "more than \(limits.ratio) times: a zip bomb is not read")
            }
            total += entry.uncompressedSize
            guard total <= limits.totalBytes else {
                throw Refusal(description: "the zip's listens would inflate to more than \(Self.mib(limits.totalBytes)); at most that is read")
            }
        }
    }

    /// A stream of the entry's inflated bytes.
    func reader(for entry: Entry) -> ZipEntryReader { ZipEntryReader(archive: self, entry: entry) }

    // MARK: Bytes

    static func read(_ readAt: (Int64, UnsafeMutableRawBufferPointer) throws -> Int, at offset: Int64, count: Int,
                     partial: Bool = false) throws(Refusal) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        do {
            while filled < count {
                let n = try bytes.withUnsafeMutableBytes { try readAt(offset + Int64(filled), UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
                if n <= 0 { break }
                filled += n
            }
        } catch {
            throw Refusal(description: "cannot read the zip: \(error)")
        }
        guard filled == count || partial else { throw Refusal(description: "not a readable zip file (it ends early)") }
        return Array(bytes.prefix(filled))
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) | UInt32(u16(b, i + 2)) << 16 }
    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32 }

    static func mib(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? "\(bytes / 1024 + (bytes % 1024 > 0 ? 1 : 0)) KiB" : "\(bytes >> 20) MiB"
    }

    /// Control characters (and quotes) as `\u{…}`: a name never starts a new line in a
    /// message or the log.
    static func printable(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar == "\"" || scalar == "\\" {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// One entry's bytes as they inflate. Ends with an error, never with a silent stop, when the
/// data is damaged: a stream that ends early or runs past the compressed size, more bytes
/// than the directory declared, or a CRC-32 that does not match.
final class ZipEntryReader {
    private let archive: ZipArchive
    private let entry: ZipArchive.Entry
    private var stream = z_stream()
    private var started = false
    private var finished = false
    /// Compressed bytes read from the file and not yet inflated (owned here, so zlib's
    /// `next_in` stays valid between calls).
    private let input: UnsafeMutableBufferPointer<Bytef>
    /// Compressed bytes not yet read from the file, and the offset of the next.
    private var remaining: Int64
    private var offset: Int64
    private(set) var produced: Int64 = 0
    private var crc: uLong

    init(archive: ZipArchive, entry: ZipArchive.Entry) {
        self.archive = archive
        self.entry = entry
        remaining = entry.compressedSize
        offset = entry.dataOffset
        crc = CZlib.crc32(0, nil, 0)
        input = .allocate(capacity: 1 << 16)
    }

    deinit {
        if started { inflateEnd(&stream) }
        input.deallocate()
    }

    private func damaged(_ why: String) -> ZipArchive.Refusal {
        ZipArchive.Refusal(description: "entry \(entry.quotedName) is damaged: \(why)")
    }

    /// Fills `buffer` with the next bytes; 0 at the end of the entry.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        let n = entry.method == 0 ? try readStored(into: buffer) : try inflate(into: buffer)
        if n > 0 {
            produced += Int64(n)
            if produced > entry.uncompressedSize {
                throw damaged("it inflates past the \(entry.uncompressedSize) bytes its directory declares (a zip bomb is not read)")
            }
            crc = CZlib.crc32(crc, buffer.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(n))
        }
        if finished {
            guard produced == entry.uncompressedSize else { throw damaged("it holds \(produced) bytes, not the \(entry.uncompressedSize) declared") }
            guard UInt32(truncatingIfNeeded: crc) == entry.crc else { throw damaged("its CRC-32 does not match") }
        }
        return n
    }

    /// Reads up to `count` compressed (or stored) bytes at the current offset.
    private func readFile(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let want = Int(min(Int64(buffer.count), remaining))
        guard want > 0 else { return 0 }
        let n = try archive.readAt(offset, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        guard n > 0 else { throw damaged("the file ends inside it") }
        offset += Int64(n)
        remaining -= Int64(n)
        return n
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try readFile(into: buffer)
        if remaining == 0 { finished = true }
        return n
    }

    private func inflate(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !started {
            guard pacenote_inflate_init_raw(&stream) == Z_OK else { throw damaged("zlib cannot start") }
            started = true
        }
        stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(buffer.count)
        while stream.avail_out > 0 {
            if stream.avail_in == 0 && remaining > 0 {
                stream.avail_in = uInt(try readFile(into: UnsafeMutableRawBufferPointer(input)))
                stream.next_in = input.baseAddress
            }
            let before = (stream.avail_in, stream.avail_out)
            let result = CZlib.inflate(&stream, Z_NO_FLUSH)
            if result == Z_STREAM_END {
                finished = true
                break
            }
            guard result == Z_OK || result == Z_BUF_ERROR else {
                throw damaged(stream.msg.map { String(cString: $0) } ?? "zlib error \(result)")
            }
            // No progress: zlib wants more input, and the entry has none left (input is
            // refilled above whenever the entry has more).
            if (stream.avail_in, stream.avail_out) == before {
                throw damaged("its deflate stream does not end within its compressed size")
            }
        }
        return buffer.count - Int(stream.avail_out)
    }
}
