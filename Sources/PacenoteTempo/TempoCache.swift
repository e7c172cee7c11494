import Foundation

/// The rendered songs on disk, kept under a size limit, least recently used first out.
///
/// An entry is two files: the render `<16 hex>.flac` (named by a hash of the caller's key,
/// e.g. the song and the ratio) and its sidecar `<16 hex>.flac.json` holding the key and the
/// caller's metadata, written after the render is complete. An entry exists when both do, so
/// a crash at any point leaves something `init` recognises and sweeps. The render's mtime is
/// its last use: the order survives restarts, and `ls -t` shows it.
///
/// Only names of that shape are ever touched or removed, so a directory shared by mistake
/// loses nothing else.
///
/// `@unchecked Sendable`: every use of the directory and of `inFlight` is under `lock`; the
/// render itself runs outside it, so lookups are not stuck behind a render of seconds.
public final class TempoCache: @unchecked Sendable {
    public let directory: String
    public let maxBytes: Int64
    private let lock = NSCondition()
    /// Names being rendered: a second insert of the same key waits rather than writing the
    /// same `.part` file at the same time, and eviction leaves them alone.
    private var inFlight: Set<String> = []
    /// The newest mtime handed out, so two uses within one clock tick still order.
    private var lastStamp = timespec(tv_sec: 0, tv_nsec: 0)

    /// Creates the directory (0755, so MPD, which may run as another user, can read the
    /// renders) and sweeps leftovers: `.part` files, renders without a sidecar, sidecars
    /// without a render.
    public init(directory: String, maxBytes: Int64) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw TempoCacheError.cannotCreate(directory: directory, reason: "\(error.localizedDescription)")
        }
        let names = Set(try listing())
        for name in names {
            let leftover: Bool
            if name.hasSuffix(".part") {
                leftover = true
            } else if name.hasSuffix(".json") {
                leftover = !names.contains(String(name.dropLast(5)))
            } else {
                leftover = !names.contains(name + ".json")
            }
            if leftover { unlink(path(name)) }
        }
        for entry in entries() where Self.isLater(entry.modified, than: lastStamp) { lastStamp = entry.modified }
    }

    /// The render's file name for `key`: FNV-1a 64 of its UTF-8, as 16 hex digits. Stable
    /// across runs and machines (Swift's `hashValue` is seeded per process, so it is not).
    public func fileName(forKey key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".flac"
    }

    /// The render for `key` and its metadata, or nil; a hit counts as a use.
    public func lookup(key: String) -> (path: String, metadata: [String: String])? {
        let name = fileName(forKey: key)
        lock.lock()
        defer { lock.unlock() }
        guard let sidecar = readSidecar(name), sidecar.key == key, access(path(name), R_OK) == 0 else { return nil }
        touch(name)
        return (path(name), sidecar.metadata)
    }

    /// The metadata stored with a render, by its file name (or path): how the watcher maps a
    /// played render back to the song it came from.
    public func metadata(ofFileName name: String) -> [String: String]? {
        let base = (name as NSString).lastPathComponent
        guard Self.isRender(base) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return readSidecar(base)?.metadata
    }

    /// Renders `key` into the cache and returns its path. `render` is given the final path
    /// and must leave a complete file there or nothing (TempoRenderer writes a `.part` and
    /// renames). Then the sidecar is written atomically, and the least recently used entries
    /// are evicted until the total fits, never the new one. If the render throws, nothing new
    /// is left (an earlier render of the key stays, untouched); if the sidecar cannot be
    /// written (a full disk), the entry is removed whole.
    @discardableResult
    public func insert(key: String, metadata: [String: String], render: (_ destination: String) throws -> Void) throws -> String {
        let name = fileName(forKey: key)
        let target = path(name)
        lock.lock()
        while inFlight.contains(name) { lock.wait() }
        inFlight.insert(name)
        lock.unlock()
        defer {
            lock.lock()
            inFlight.remove(name)
            lock.broadcast()
            lock.unlock()
        }

        try render(target)

        lock.lock()
        defer { lock.unlock() }
        do {
            guard access(target, R_OK) == 0 else {
                throw TempoCacheError.writeFailed(reason: "the render left no file at \(target)")
            }
            try writeSidecar(name, Sidecar(key: key, metadata: metadata))
        } catch {
            unlink(target)
            unlink(target + ".json")
            throw error
        }
        touch(name)
        evict(keeping: name)
        return target
    }

    /// Bytes the complete entries take, renders and sidecars.
    public var totalBytes: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return entries().reduce(0) { $0 + $1.bytes }
    }

    /// Complete entries.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries().count
    }

    // MARK: - Under the lock

    private struct Sidecar: Codable {
        var key: String
        var metadata: [String: String]
    }

    private struct Entry {
        var name: String
        var bytes: Int64
        var modified: timespec
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// Our names in the directory: renders, sidecars and their `.part` files.
    private func listing() throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
                let base = name.hasSuffix(".part") ? String(name.dropLast(5)) : name
                return Self.isRender(base) || (base.hasSuffix(".json") && Self.isRender(String(base.dropLast(5))))
            }
        } catch {
            throw TempoCacheError.cannotCreate(directory: directory, reason: "\(error.localizedDescription)")
        }
    }

    /// `<16 lowercase hex>.flac`, the only render name this cache makes.
    static func isRender(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard utf8.count == 21, name.hasSuffix(".flac") else { return false }
        return utf8[0..<16].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Complete entries with their size (render and sidecar) and last use.
    private func entries() -> [Entry] {
        guard let names = try? listing() else { return [] }
        let present = Set(names)
        return names.compactMap { name in
            guard Self.isRender(name), present.contains(name + ".json") else { return nil }
            var render = stat(), sidecar = stat()
            guard stat(path(name), &render) == 0, stat(path(name + ".json"), &sidecar) == 0 else { return nil }
            return Entry(name: name, bytes: Int64(render.st_size) + Int64(sidecar.st_size), modified: render.st_mtim)
        }
    }

    private func readSidecar(_ name: String) -> Sidecar? {
        guard let data = FileManager.default.contents(atPath: path(name + ".json")) else { return nil }
        return try? JSONDecoder().decode(Sidecar.self, from: data)
    }

    /// Writes `<name>.json.part`, fsyncs it and renames it over `<name>.json`: a full disk
    /// leaves the old sidecar or none, never half of one.
    private func writeSidecar(_ name: String, _ sidecar: Sidecar) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(sidecar)
        let final = path(name + ".json"), part = final + ".part"
        let descriptor = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TempoCacheError.writeFailed(reason: "\(part): \(Self.errnoText())") }
        var failure: String?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Self.errnoText()
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Self.errnoText() }
        if close(descriptor) != 0, failure == nil { failure = Self.errnoText() }
        if failure == nil, rename(part, final) != 0 { failure = Self.errnoText() }
        if let failure {
            unlink(part)
            throw TempoCacheError.writeFailed(reason: "\(final): \(failure)")
        }
    }

    /// Marks a use: the render's mtime becomes now, or just after the newest use if the
    /// clock has not moved on since.
    private func touch(_ name: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if !Self.isLater(now, than: lastStamp) {
            now = lastStamp
            now.tv_nsec += 1000
            if now.tv_nsec >= 1_000_000_000 { now.tv_sec += 1; now.tv_nsec -= 1_000_000_000 }
        }
        lastStamp = now
        var times = [now, now]
        utimensat(AT_FDCWD, path(name), &times, 0)
    }

    private func evict(keeping kept: String) {
        var all = entries()
        var total = all.reduce(0) { $0 + $1.bytes }
        guard total > maxBytes else { return }
        all.sort { Self.isLater($1.modified, than: $0.modified) }
        for entry in all where total > maxBytes && entry.name != kept && !inFlight.contains(entry.name) {
            // The sidecar first: without it the render is no longer an entry, whatever happens next.
            unlink(path(entry.name + ".json"))
            unlink(path(entry.name))
            total -= entry.bytes
        }
    }

    private static func isLater(_ a: timespec, than b: timespec) -> Bool {
        a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why the cache could not do what was asked; `description` is the line shown to users.
public enum TempoCacheError: Error, Sendable, CustomStringConvertible {
    case cannotCreate(directory: String, reason: String)
    case writeFailed(reason: String)

    public var description: String {
        switch self {
        case .cannotCreate(let directory, let reason):
            return "Cannot use \(directory) for tempo-matched songs: \(reason)"
        case .writeFailed(let reason):
            return "Could not save the tempo-matched song: \(reason)"
        }
    }
}
