import Foundation
import PacenoteTestSupport
import Testing

/// The system unit's seccomp settings, checked against what the packaged binary really does:
/// it runs as an unprivileged user (as under `User=pacenote`) under strace, serves pages,
/// follows a playing MPD, writes its database and stops on SIGTERM; then every system call
/// it made must be one `SystemCallFilter=` lets through, no memory may be writable and
/// executable (`MemoryDenyWriteExecute=`), and every socket one `RestrictAddressFamilies=`
/// allows. A call outside them would make the service fail only once installed.
@Suite struct PackagedSandboxTests {
    /// The system calls `SystemCallFilter=` lines allow: the first line's groups, less the
    /// groups of each `~` line, expanded by systemd's own table (`systemd-analyze syscall-filter`).
    static func allowedSystemCalls(unit: String) throws -> Set<String> {
        var groups: [String: [String]] = [:]
        var current: String?
        let table = try run(try Tools.require("systemd-analyze"), ["syscall-filter"]).stdout
        for line in table.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("@") { current = String(line); groups[current!] = []; continue }
            guard line.hasPrefix("    "), let group = current else { current = nil; continue }
            let entry = line.trimmingCharacters(in: .whitespaces)
            if !entry.hasPrefix("#") { groups[group, default: []].append(entry) }
        }
        func expand(_ name: String) -> Set<String> {
            guard name.hasPrefix("@") else { return [name] }
            return (groups[name] ?? []).reduce(into: Set<String>()) { $0.formUnion(expand($1)) }
        }
        var allowed = Set<String>()
        let filters = unit.split(separator: "\n").filter { $0.hasPrefix("SystemCallFilter=") }
            .map { $0.dropFirst("SystemCallFilter=".count) }
        #expect(filters.count >= 1 && !filters[0].hasPrefix("~"))
        for filter in filters {
            let names = filter.hasPrefix("~") ? filter.dropFirst() : filter
            let set = names.split(separator: " ").reduce(into: Set<String>()) { $0.formUnion(expand(String($1))) }
            if filter.hasPrefix("~") { allowed.subtract(set) } else { allowed.formUnion(set) }
        }
        #expect(allowed.contains("read") && !allowed.contains("setuid") && !allowed.contains("reboot"), "\(allowed.count) calls")
        return allowed
    }

    @Test func thePackagedBinaryStaysInsideTheSystemUnitsSandbox() throws {
        let package = try BuiltPackage.shared()
        let unit = try String(contentsOfFile: package.systemUnit, encoding: .utf8)
        let allowed = try Self.allowedSystemCalls(unit: unit)
        let mpd = try MPDInstance(tracks: [TestTrack("a.flac", seconds: 30, title: "Alpha", artist: "Tester")])

        let trace = try TemporaryDirectory("pacenote-strace")
        chmod(trace.path, 0o777)
        let log = trace.file("strace.log")
        // Unprivileged, as the service's own user: run by root, SQLite chowns its new files
        // (@chown, which the unit refuses); so root runs it as nobody.
        let unprivileged = geteuid() == 0
            ? [try Tools.require("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let launcher = unprivileged + [try Tools.require("strace"), "-f", "-qq", "-o", log]
        let service = try PackagedServiceTests.Service(package, mpd: mpd, journal: nil, launcher: launcher)
        for path in ["/healthz", "/", "/history", "/stats", "/api/v1/status", "/static/site.css", "/api/v1/listens"] {
            #expect(try HTTP.get(service.base + path).status == 200, "\(path)")
        }
        try mpd.mpc("add", "a.flac")
        try mpd.mpc("play")
        #expect(eventually(timeout: 10) { (try? HTTP.get(service.base + "/api/v1/status").text.contains("Alpha")) ?? false },
                "the packaged binary sees MPD play")
        let key = try String(contentsOfFile: service.data.file("api-key"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let posted = try HTTP.request("POST", service.base + "/api/v1/hr", body: Array(#"{"bpm": 96}"#.utf8),
                                      headers: ["Authorization": "Token \(key)", "Content-Type": "application/json"])
        #expect((200..<300).contains(posted.status), "heart rate written: \(posted.status) \(posted.text)")

        // SIGTERM to pacenote itself (strace's child), as systemd's KillSignal= sends it.
        let children = (try? String(contentsOfFile: "/proc/\(service.process.processIdentifier)/task/\(service.process.processIdentifier)/children",
                                    encoding: .utf8)) ?? ""
        let pid = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "strace's child")
        #expect(service.stop(pid: pid) == 0, "a clean stop under strace too:\n\(service.stderr)")

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count > 100, "strace saw the service: \(lines.count) lines")
        var used = Set<String>()
        var writableAndExecutable: [Substring] = []
        var families = Set<String>()
        for line in lines {
            // "1234  mmap(NULL, 4096, PROT_READ|PROT_WRITE, …) = 0x…"; resumed and signal lines have no name.
            guard let call = line.firstMatch(of: /^\d+\s+([a-z0-9_]+)\((.*)/) else { continue }
            let name = String(call.1)
            used.insert(name)
            let arguments = call.2
            if ["mmap", "mprotect", "pkey_mprotect"].contains(name) && arguments.contains("PROT_EXEC")
                && (name != "mmap" || arguments.contains("PROT_WRITE")) {
                writableAndExecutable.append(line)
            }
            if name == "socket" || name == "socketpair" { families.insert(String(arguments.prefix { $0 != "," })) }
        }
        let outside = used.subtracting(allowed).sorted()
        #expect(outside.isEmpty, "system calls SystemCallFilter= would refuse: \(outside)")
        #expect(writableAndExecutable.isEmpty, "MemoryDenyWriteExecute= would refuse: \(writableAndExecutable.prefix(5))")
        #expect(used.contains("mmap") && used.contains("socket"), "\(used.sorted())")
        #expect(families.isSubset(of: ["AF_UNIX", "AF_INET", "AF_INET6"]), "RestrictAddressFamilies= would refuse: \(families)")
    }
}
