import Foundation
import Testing
import PacenoteTestSupport

/// The test MPD itself: a port another server took between being chosen and being bound
/// must not let a test talk to that server (CI once saw `mpc update` cut off that way).
@Suite struct MPDHarnessTests {
    @Test func anMPDWhosePortWasTakenStartsOnAnother() throws {
        let taken = try Ports.free()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = taken.bigEndian
        let listening = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        } && listen(fd, 4) == 0
        try #require(listening)

        let mpd = try MPDInstance(firstPort: taken)
        #expect(mpd.port != taken)
        #expect(try mpd.mpc("-f", "%title%", "listall").contains("Alpha") || mpd.mpc("ls").contains("a.flac"))
        #expect(try mpd.command("status").contains("state: stop"))
    }
}
