import Foundation
import Testing
@testable import PacenoteCore

@Suite struct ListenBrainzSubmissionTests {
    func parse(_ json: String) throws -> ListenBrainzSubmission {
        try ListenBrainzSubmission.parse(Array(json.utf8))
    }

    @Test func readsAListenWithItsMetadata() throws {
        let s = try parse("""
            {"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {
              "artist_name": "Dool", "track_name": "Vantablack", "release_name": "Here Now, There Then",
              "additional_info": {"duration_ms": 215500, "recording_mbid": "e225fb84-dc9a-419e-adcd-9890f59ec432",
                                  "artist_mbids": ["24412926-c7bd-48e8-afad-8a285b42e131"], "tracknumber": 1,
                                  "media_player": "Pano Scrobbler"}}}]}
            """)
        #expect(s.type == .single)
        let listen = try #require(s.listens.first)
        #expect(listen.listenedAt == Date(timeIntervalSince1970: 1_763_794_800))
        #expect(listen.track.title == "Vantablack" && listen.track.artist == "Dool" && listen.track.album == "Here Now, There Then")
        #expect(listen.track.durationSeconds == 215.5)
        #expect(listen.track.musicBrainz.recording == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(listen.track.musicBrainz.artist == "24412926-c7bd-48e8-afad-8a285b42e131")
        #expect(listen.track.trackNumber == 1)
        #expect(listen.client == "Pano Scrobbler")
        #expect(try parse(#"{"listen_type": "import", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B", "additional_info": {"duration": 200}}}]}"#)
            .listens[0].track.durationSeconds == 200)
        #expect(try parse(#"{"listen_type": "playing_now", "payload": [{"track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#)
            .listens[0].listenedAt == nil)
    }

    @Test(arguments: [
        ("not json", "Cannot parse JSON"),
        ("[]", "Invalid JSON document"),
        (#"{"payload": []}"#, "listen_type"),
        (#"{"listen_type": "many", "payload": []}"#, "valid listen_type"),
        (#"{"listen_type": "single"}"#, "key payload"),
        (#"{"listen_type": "single", "payload": {}}"#, "must be a list"),
        (#"{"listen_type": "import", "payload": []}"#, "does not contain any listens"),
        (#"{"listen_type": "single", "payload": [1, 2]}"#, "exactly one listen"),
        (#"{"listen_type": "single", "payload": [{"track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "listened_at"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1000, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "too low"),
        (#"{"listen_type": "single", "payload": [{"listened_at": "soon", "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "int value"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1e19, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "int value"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 9000000000000000, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "future"),
        (#"{"listen_type": "playing_now", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#, "must not contain listened_at"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1763794800}]}"#, "track_metadata"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "", "track_name": "B"}}]}"#, "artist_name"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A"}}]}"#, "track_name"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B", "additional_info": {"duration": 1, "duration_ms": 1000}}}]}"#, "both duration"),
        (#"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B", "additional_info": {"duration_ms": -5}}}]}"#, "duration_ms"),
    ])
    func rejectsWhatListenBrainzRejects(body: String, fragment: String) {
        #expect {
            _ = try parse(body)
        } throws: { ($0 as? ListenBrainzSubmission.Rejection)?.message.contains(fragment) == true }
    }

    @Test func limitsOfSizeAndCount() {
        let one = #"{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}"#
        let tooMany = #"{"listen_type": "import", "payload": ["# + Array(repeating: one, count: 1001).joined(separator: ",") + "]}"
        #expect { _ = try parse(tooMany) } throws: { ($0 as? ListenBrainzSubmission.Rejection)?.message.contains("Too many listens") == true }
        let big = #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "\#(String(repeating: "x", count: 11_000))"}}]}"#
        #expect { _ = try parse(big) } throws: { ($0 as? ListenBrainzSubmission.Rejection)?.message.contains("too large") == true }
        // The size check's count is within a few bytes of the listen written out (not written out).
        let listen = try? JSONSerialization.jsonObject(with: Data(#"{"listened_at": 1763794800, "track_metadata": {"artist_name": "Ünïcode", "track_name": "B", "additional_info": {"tags": ["a", "b"], "duration_ms": 215000, "x": null}}}"#.utf8))
        let written = (try? JSONSerialization.data(withJSONObject: listen as Any).count) ?? 0
        #expect(abs(ListenBrainzSubmission.jsonLength(listen as Any, limit: 10_240) - written) <= 4, "\(written)")
        let almost = #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "\#(String(repeating: "x", count: 10_000))"}}]}"#
        #expect((try? parse(almost)) != nil, "under 10,240 bytes")
    }
}
