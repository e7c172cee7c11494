import Testing
@testable import PacenoteCore

/// The pure parts of issue 51's outbound points: which addresses a friend's feed may make
/// the poller reach, secrets in URLs masked, the Last.fm protocols' sealed md5.
@Suite struct AddressClassTests {
    static func of(_ text: String) -> AddressClass? { IPNetwork.parseAddress(text).map(AddressClass.of) }

    @Test(arguments: [
        ("8.8.8.8", AddressClass.global), ("1.1.1.1", .global), ("172.32.0.1", .global), ("100.128.0.1", .global),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
        ("10.0.0.1", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private),
        ("100.64.0.1", .private), ("100.127.255.255", .private), ("198.18.0.1", .private),
        ("169.254.169.254", .linkLocal), ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("255.255.255.255", .reserved), ("240.0.0.1", .reserved),
        ("192.0.2.1", .reserved),
    ])
    func ipv4(_ text: String, _ expected: AddressClass) {
        #expect(Self.of(text) == expected, "\(text)")
    }

    @Test(arguments: [
        ("2001:4860:4860::8888", AddressClass.global), ("2a00:1450::1", .global),
        ("::1", .loopback), ("::", .unspecified), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fc00::1", .private), ("fd12:3456::1", .private), ("fec0::1", .private),
        ("ff02::1", .multicast), ("2001:db8::1", .reserved), ("100::1", .reserved),
        // IPv4 carried in IPv6 is the class of the IPv4 address.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.1.2.3", .private),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:0.0.0.0", .unspecified), ("::ffff:8.8.8.8", .global),
        ("::127.0.0.1", .loopback), ("::192.168.0.1", .private),
        ("64:ff9b::7f00:1", .loopback), ("64:ff9b::a00:1", .private), ("64:ff9b::808:808", .global), ("64:ff9b:1::1", .private),
        ("2002:7f00:1::", .loopback), ("2002:c0a8:101::1", .private), ("2002:808:808::1", .global),
    ])
    func ipv6(_ text: String, _ expected: AddressClass) {
        #expect(Self.of(text) == expected, "\(text)")
    }

    @Test func addressesAsText() {
        #expect(AddressClass.text([127, 0, 0, 1]) == "127.0.0.1")
        #expect(AddressClass.text(IPNetwork.parseAddress("::1")!) == "::1")
        #expect(AddressClass.text(IPNetwork.parseAddress("fe80::1:2")!) == "fe80::1:2")
        #expect(AddressClass.text(IPNetwork.parseAddress("::ffff:10.0.0.1")!) == "::ffff:10.0.0.1")
        #expect(AddressClass.text(IPNetwork.parseAddress("2001:db8:0:1:0:0:0:1")!) == "2001:db8:0:1::1")
    }

    @Test func aFriendsOwnClassIsAllowedAndNoOther() {
        let public_ = OutboundPolicy.forFriend(url: "https://music.example.org/sotd.atom")
        #expect(public_ == .publicOnly)
        #expect(public_.refusal([93, 184, 216, 34]) == nil)
        #expect(public_.refusal([127, 0, 0, 1]) == "refused to connect to 127.0.0.1, a loopback address: the friend was added with a public address")
        #expect(public_.refusal(IPNetwork.parseAddress("::ffff:192.168.1.1")!)?.contains("a private address") == true)
        #expect(public_.refusal(IPNetwork.parseAddress("fe80::1")!)?.contains("link-local") == true)
        #expect(public_.refusal([0, 0, 0, 0]) != nil && public_.refusal([169, 254, 169, 254]) != nil)

        let lan = OutboundPolicy.forFriend(url: "http://192.168.1.20:6680/sotd.atom")
        #expect(lan.refusal([192, 168, 1, 99]) == nil && lan.refusal([10, 0, 0, 1]) == nil && lan.refusal([8, 8, 8, 8]) == nil)
        #expect(lan.refusal([127, 0, 0, 1])?.hasSuffix("the friend was added with a private address") == true)

        let loop = OutboundPolicy.forFriend(url: "http://127.0.0.2:8080/feed")
        #expect(loop.refusal([127, 0, 0, 1]) == nil && loop.refusal(IPNetwork.parseAddress("::1")!) == nil)
        #expect(loop.refusal([0, 0, 0, 0]) != nil && loop.refusal([10, 0, 0, 1]) != nil)

        let v6 = OutboundPolicy.forFriend(url: "http://[fe80::1%25eth0]:80/")
        #expect(v6.allowed == [.global, .linkLocal])
        #expect(OutboundPolicy.forFriend(url: "http://[::1]:80/").allowed == [.global, .loopback])
        #expect(OutboundPolicy.forFriend(url: "http://localhost:6680/").allowed == [.global, .loopback])
        #expect(OutboundPolicy.forFriend(url: "http://nas/sotd.atom").allowed == [.global, .private, .linkLocal])
        #expect(OutboundPolicy.forFriend(url: "http://pi.local/").allowed == [.global, .private, .linkLocal])
        // A name is what its owner makes it resolve to: public, however it resolves.
        #expect(OutboundPolicy.forFriend(url: "http://127.0.0.1.nip.io/").allowed == [.global])
        #expect(OutboundPolicy.forFriend(url: "http://user@10.0.0.1/").allowed == [.global, .private])
        #expect(OutboundPolicy.forFriend(url: "not a url") == .publicOnly)
    }
}

@Suite struct URLSecretsTests {
    @Test(arguments: [
        ("https://api.example.com/submit?token=abc123", "https://api.example.com/submit?token=***"),
        ("https://x.test/a?user=me&api_key=K&apikey=K2&X-Auth-Token=T&sig=S&session=s&page=2",
         "https://x.test/a?user=me&api_key=***&apikey=***&X-Auth-Token=***&sig=***&session=***&page=2"),
        ("https://x.test/a?Password=p&secret=&access_token=t#frag", "https://x.test/a?Password=***&secret=&access_token=***#frag"),
        ("https://x.test/a?api%5Fkey=K", "https://x.test/a?api%5Fkey=***"),
        ("https://x.test/cb#access_token=t&state=ok", "https://x.test/cb#access_token=***&state=ok"),
        ("https://alice:hunter2@x.test:8443/path?q=1", "https://alice:***@x.test:8443/path?q=1"),
        ("https://ghp_token@github.example/x", "https://***@github.example/x"),
        ("http://[::1]:6680/apis/listenbrainz", "http://[::1]:6680/apis/listenbrainz"),
        ("https://api.listenbrainz.org", "https://api.listenbrainz.org"),
        ("https://x.test/p@th?key=v", "https://x.test/p@th?key=***"),
        ("not a url ?token=x", "not a url ?token=x"),
        ("", ""),
    ])
    func masked(_ url: String, _ expected: String) {
        #expect(URLSecrets.masked(url) == expected)
    }

    @Test func urlsInTextAreMasked() {
        #expect(URLSecrets.maskedInText("b: https://u:pw@h.test/x?token=t failed: Could not resolve host: h.test")
                == "b: https://u:***@h.test/x?token=*** failed: Could not resolve host: h.test")
        #expect(URLSecrets.maskedInText("two: http://a.test/?key=1 and \"https://b.test/?sig=2\".")
                == "two: http://a.test/?key=*** and \"https://b.test/?sig=***\".")
        #expect(URLSecrets.maskedInText("HTTP 401: bad token") == "HTTP 401: bad token")
    }
}

@Suite struct ScrobblerCredentialsTests {
    /// RFC 4231, test cases 1 and 2.
    @Test func hmacSHA256() {
        let one = HMACSHA256.mac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(ScrobblerCredentials.hex(one) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let two = HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(ScrobblerCredentials.hex(two) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func sealedIsNotTheMD5AndUnsealsOnlyWithTheSecretAndItsKey() throws {
        let key = "pn_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
        let md5 = MD5.hex(key), sha = SHA256.hex(key)
        let secret = [UInt8](repeating: 7, count: 32)
        let sealed = try #require(ScrobblerCredentials.seal(md5Hex: md5, keySHA256: sha, secret: secret))
        #expect(sealed.count == 32 && sealed != md5)
        #expect(ScrobblerCredentials.unseal(sealed, keySHA256: sha, secret: secret) == md5)
        #expect(ScrobblerCredentials.unseal(sealed, keySHA256: sha, secret: [UInt8](repeating: 8, count: 32)) != md5)
        #expect(ScrobblerCredentials.unseal(sealed, keySHA256: SHA256.hex("other"), secret: secret) != md5)
        #expect(ScrobblerCredentials.seal(md5Hex: "not hex", keySHA256: sha, secret: secret) == nil)
        #expect(ScrobblerCredentials.tokenID(protocolVersion: "2.0", token: "ABC") == ScrobblerCredentials.tokenID(protocolVersion: "2.0", token: "abc"))
        #expect(ScrobblerCredentials.tokenID(protocolVersion: "2.0", token: "abc") != ScrobblerCredentials.tokenID(protocolVersion: "1.2", token: "abc"))
    }
}
