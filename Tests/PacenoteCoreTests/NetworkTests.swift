import Testing
@testable import PacenoteCore

@Suite struct IPNetworkTests {
    @Test(arguments: [
        ("192.168.0.0/16", "192.168.1.20", true), ("192.168.0.0/16", "192.169.0.1", false),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.1", false),
        ("10.0.0.0/8", "::ffff:10.1.2.3", true), ("127.0.0.1", "127.0.0.1", true), ("127.0.0.1", "127.0.0.2", false),
        ("::1/128", "::1", true), ("::1/128", "::2", false), ("fc00::/7", "fd12:3456::1", true), ("fc00::/7", "fe80::1", false),
        ("fe80::/10", "fe80::1ff:fe23:4567:890a", true), ("0.0.0.0/0", "8.8.8.8", true), ("::/0", "2001:db8::1", true),
        ("192.168.0.0/16", "2001:db8::1", false), ("10.0.0.0/8", "not an address", false),
    ])
    func contains(network: String, address: String, expected: Bool) throws {
        #expect(try #require(IPNetwork(network)).contains(address) == expected)
    }

    @Test(arguments: ["", "10.0.0.0/33", "::/129", "300.1.1.1", "1.2.3", "1:2:3:4:5:6:7:8:9", "1::2::3", "10.0.0.0/x", "g::1",
                      "1.2.3.4.", ".1.2.3", "1..2.3", "1.2.3.+4", "1.2.3.256", "1.2.3.4 ", "1.2.3.٣"])
    func rejects(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func homeDefaultsCoverLoopbackAndPrivateRanges() {
        for ip in ["127.0.0.1", "::1", "192.168.178.20", "10.0.0.7", "fd00::5"] {
            #expect(IPNetwork.homeDefaults.containsAddress(ip), "\(ip)")
        }
        for ip in ["8.8.8.8", "2a00:1450::1", "100.64.0.1"] {
            #expect(!IPNetwork.homeDefaults.containsAddress(ip), "\(ip)")
        }
    }
}
