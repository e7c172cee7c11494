import Foundation
import PacenoteCore

extension Doctor {
    /// Whether a sync on the database's filesystem reaches the disk: an answered change is
    /// only as durable as the sync before it (`GroupCommit`). Read from the mount that holds
    /// `directory` in /proc/self/mountinfo.
    static func durability(_ directory: String) -> DoctorCheck {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
            return DoctorCheck("durability", .note, "cannot read /proc/self/mountinfo: the filesystem was not checked")
        }
        let path = (directory as NSString).resolvingSymlinksInPath
        guard let mount = MountTable(table).mount(holding: path) else {
            return DoctorCheck("durability", .note, "no mount found for \(path)")
        }
        return durability(of: mount)
    }

    /// The judgement for a mount: memory (tmpfs, ramfs) and mounts that drop write barriers
    /// keep nothing over a power cut; network filesystems sync to a server whose own cache and
    /// locking SQLite cannot rely on (https://sqlite.org/useovernet.html).
    static func durability(of mount: MountTable.Mount) -> DoctorCheck {
        let at = "\(mount.point) (\(mount.type))"
        if ["tmpfs", "ramfs"].contains(mount.type) {
            return DoctorCheck("durability", .warning, "the database is in memory: \(at) loses everything at a power cut or reboot",
                               advice: "put database.path on a disk")
        }
        if mount.options.contains("nobarrier") || mount.options.contains("barrier=0") {
            return DoctorCheck("durability", .warning, "\(at) is mounted with nobarrier: syncs may not reach the disk",
                               advice: "remount without nobarrier (or barrier=0), or acknowledged changes can be lost at a power cut")
        }
        let network = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "afs", "lustre"]
        if network.contains(mount.type) || mount.type.hasPrefix("fuse.sshfs") {
            return DoctorCheck("durability", .warning, "\(at) is a network filesystem: SQLite's locking and syncs are not reliable there",
                               advice: "keep database.path on a local disk (backups may go to the network share)")
        }
        return DoctorCheck("durability", .ok, "changes are answered after a sync; \(at) honours syncs")
    }
}

/// The mounts of /proc/self/mountinfo (proc(5)): each line's mount point, filesystem type and
/// options (the mount's own and the filesystem's, together).
struct MountTable {
    struct Mount: Equatable {
        var point: String
        var type: String
        var options: Set<String>
    }

    let mounts: [Mount]

    init(_ text: String) {
        mounts = text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            // ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL…] - TYPE SOURCE SUPER-OPTIONS
            guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash >= 6, fields.count > dash + 3 else { return nil }
            let options = fields[5].split(separator: ",") + fields[dash + 3].split(separator: ",")
            return Mount(point: Self.unescape(fields[4]), type: fields[dash + 1], options: Set(options.map(String.init)))
        }
    }

    /// The mount whose point is the longest prefix of `path` (the last one mounted wins a tie).
    func mount(holding path: String) -> Mount? {
        var best: Mount?
        for mount in mounts {
            let prefix = mount.point == "/" ? "/" : mount.point + "/"
            guard path == mount.point || path.hasPrefix(prefix) else { continue }
            if (best?.point.count ?? -1) <= mount.point.count { best = mount }
        }
        return best
    }

    /// Mount points write a space as `\040` (and tab, newline, backslash likewise).
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\040", with: " ").replacingOccurrences(of: "\\011", with: "\t")
            .replacingOccurrences(of: "\\012", with: "\n").replacingOccurrences(of: "\\134", with: "\\")
    }
}
