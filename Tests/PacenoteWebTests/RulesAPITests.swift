import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// `/api/v1/rules` and the `/rules` page (issue 19, point 3): shapes, one error path for
/// bad rules, strangers refused, the dry run and the apply, the hidden plays.
@Suite struct RulesAPITests {
    final class Fixture: Sendable {
        let dir: TemporaryDirectory
        let store: Store
        let api: API

        init() throws {
            dir = try TemporaryDirectory()
            let utc = TimeZone(identifier: "UTC")!
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
            for (i, title) in ["Song - Remastered 2011", "Song", "Lullaby <b>"].enumerated() {
                let track = try store.saveTrack(Track(uri: "m/\(i).flac", title: title, artist: "Band", genre: i == 2 ? "Sleep" : nil,
                                                      durationSeconds: 200))
                for day in 0..<2 {
                    let start = Date(timeIntervalSince1970: 1_767_225_600 + Double(day * 86_400 + i * 600))
                    try store.insertPlay(Play(trackID: track, startedAt: start, endedAt: start.addingTimeInterval(200),
                                              playedSeconds: 200, counted: true, source: "mpd"))
                }
            }
            api = API(context: APIContext.forTests(version: "t", store: store, timeZone: utc, apiKey: "key", players: { [] }))
        }

        func send(_ method: String, _ path: String, query: [String: String] = [:], body: String = "", key: String? = "key",
                  peer: String = "127.0.0.1", form: Bool = false) -> HTTPResponse {
            var headers: [String: String] = [:]
            if let key { headers["X-API-Key"] = key }
            if form { headers["Content-Type"] = "application/x-www-form-urlencoded" } else if !body.isEmpty {
                headers["Content-Type"] = "application/json"
            }
            return api.handle(HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8),
                                          peerAddress: peer))
        }

        func json(_ response: HTTPResponse) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        }

        deinit { try? store.close() }
    }

    @Test func addListChangeAndDeleteARule() throws {
        let f = try Fixture()
        let added = f.send("POST", "/api/v1/rules", body: #"{"action": "rewrite", "field": "title", "value": " - Remastered \\d{4}$", "replacement": ""}"#)
        #expect(added.status == 201, "\(added.text)")
        let rule = f.json(added)
        #expect(rule["match"] as? String == "regex")
        #expect(rule["origin"] as? String == "site")
        #expect(rule["enabled"] as? Bool == true)
        let id = rule["id"] as? Int ?? 0
        #expect(f.send("POST", "/api/v1/rules", body: #"{"action": "hide", "field": "genre", "value": "sleep"}"#).status == 201)
        let list = f.json(f.send("GET", "/api/v1/rules"))
        #expect((list["rules"] as? [[String: Any]])?.map { $0["action"] as? String } == ["rewrite", "hide"])
        #expect((list["order"] as? String)?.contains("rewrites first") == true)
        let patched = f.send("PATCH", "/api/v1/rules/\(id)", body: #"{"enabled": false}"#)
        #expect(patched.status == 200 && f.json(patched)["enabled"] as? Bool == false, "\(patched.text)")
        #expect(f.json(f.send("GET", "/api/v1/rules/\(id)"))["value"] as? String == " - Remastered \\d{4}$")
        #expect(f.send("DELETE", "/api/v1/rules/\(id)").status == 200)
        #expect(f.send("GET", "/api/v1/rules/\(id)").status == 404)
        #expect(f.send("DELETE", "/api/v1/rules/\(id)").status == 404)
    }

    @Test(arguments: [
        #"{"action": "ignore", "field": "title", "match": "regex", "value": "([unclosed"}"#,
        #"{"action": "forget", "field": "title", "value": "x"}"#,
        #"{"action": "ignore", "field": "mood", "value": "x"}"#,
        #"{"action": "ignore", "field": "title"}"#,
        #"{"action": "ignore", "field": "title", "value": ""}"#,
        #"{"action": "ignore", "field": "duration", "value": "soon"}"#,
        #"{"action": "rewrite", "field": "genre", "value": "x", "replacement": ""}"#,
        #"{"action": "rewrite", "field": "title", "value": "x"}"#,
        #"{"action": "ignore", "field": "title", "value": "x", "enabled": "yes"}"#,
        #"{"action": "ignore", "field": "title", "value": "x", "colour": "red"}"#,
        #"[1, 2]"#,
    ])
    func badRulesAreOne400(body: String) throws {
        let f = try Fixture()
        let response = f.send("POST", "/api/v1/rules", body: body)
        #expect(response.status == 400, "\(body): \(response.text)")
        let error = f.json(response)["error"] as? [String: Any]
        #expect(error?["code"] as? String == "invalid_rule" || error?["code"] as? String == "invalid_json")
        #expect((error?["message"] as? String)?.isEmpty == false)
        #expect(try f.store.rules().isEmpty)
    }

    @Test func aTooLongPatternIsRefused() throws {
        let f = try Fixture()
        let long = String(repeating: "a", count: 501)
        #expect(f.send("POST", "/api/v1/rules", body: #"{"action": "ignore", "field": "title", "value": "\#(long)"}"#).status == 400)
    }

    @Test func strangersNeitherReadNorChangeRules() throws {
        let f = try Fixture()
        #expect(f.send("POST", "/api/v1/rules", body: #"{"action": "hide", "field": "genre", "value": "sleep"}"#).status == 201)
        let id = try f.store.rules()[0].id!
        #expect(f.send("GET", "/api/v1/rules", key: nil, peer: "203.0.113.9").status == 403)
        #expect(f.send("GET", "/api/v1/listens", query: ["hidden": "true"], key: nil, peer: "203.0.113.9").status == 403)
        for (method, path) in [("POST", "/api/v1/rules"), ("PATCH", "/api/v1/rules/\(id)"), ("DELETE", "/api/v1/rules/\(id)"),
                               ("POST", "/api/v1/rules/\(id)/preview"), ("POST", "/api/v1/rules/\(id)/apply")] {
            #expect(f.send(method, path, body: #"{"value": "x"}"#, key: nil, peer: "203.0.113.9").status == 401, "\(method) \(path)")
            #expect(f.send(method, path, body: #"{"value": "x"}"#, key: "wrong", peer: "203.0.113.9").status == 401, "\(method) \(path)")
        }
        #expect(try f.store.rules().count == 1)
        #expect(try f.store.counts().plays == 6)
    }

    @Test func theDryRunListsWhatTheApplyChangesAndTheUndoRestoresIt() throws {
        let f = try Fixture()
        let added = f.json(f.send("POST", "/api/v1/rules", body: #"{"action": "rewrite", "field": "title", "value": " - Remastered \\d{4}$", "replacement": ""}"#))
        let id = added["id"] as? Int ?? 0
        let preview = f.send("POST", "/api/v1/rules/\(id)/preview")
        #expect(preview.status == 200, "\(preview.text)")
        let dry = f.json(preview)
        #expect(dry["total"] as? Int == 2)
        let changes = dry["changes"] as? [[String: Any]] ?? []
        #expect(changes.map { ($0["after"] as? [String: Any])?["title"] as? String } == ["Song", "Song"])
        #expect(changes.map { $0["change"] as? String } == ["rewrite", "rewrite"])
        #expect(try f.store.plays(limit: 10).filter { $0.track.title.contains("Remastered") }.count == 2, "a dry run changes nothing")

        let applied = f.send("POST", "/api/v1/rules/\(id)/apply")
        #expect(applied.status == 200, "\(applied.text)")
        let result = f.json(applied)
        let ids = { (changes: Any?) in ((changes as? [[String: Any]]) ?? []).map { ($0["listen"] as? [String: Any])?["id"] as? Int } }
        #expect(ids(result["changes"]) == ids(dry["changes"]))
        #expect(try f.store.plays(limit: 10).filter { $0.track.title.contains("Remastered") }.isEmpty)
        let entry = result["curation"] as? [String: Any] ?? [:]
        #expect(entry["kind"] as? String == "rule")
        // Nothing left to change: a conflict, in the one error shape.
        #expect(f.send("POST", "/api/v1/rules/\(id)/apply").status == 409)
        let undo = f.send("POST", "/api/v1/curation/\(entry["id"] as? Int ?? 0)/undo")
        #expect(undo.status == 200, "\(undo.text)")
        #expect(try f.store.plays(limit: 10).filter { $0.track.title.contains("Remastered") }.count == 2)
        #expect(f.send("POST", "/api/v1/rules/999/preview").status == 404)
        #expect(f.send("POST", "/api/v1/rules/\(id)/preview", query: ["limit": "0"]).status == 400)
    }

    @Test func hiddenPlaysAreListedApart() throws {
        let f = try Fixture()
        let id = f.json(f.send("POST", "/api/v1/rules", body: #"{"action": "hide", "field": "genre", "value": "SLEEP"}"#))["id"] as? Int ?? 0
        #expect(f.send("POST", "/api/v1/rules/\(id)/apply").status == 200)
        let hidden = f.json(f.send("GET", "/api/v1/listens", query: ["hidden": "true"]))
        #expect((hidden["listens"] as? [[String: Any]])?.compactMap { ($0["track"] as? [String: Any])?["title"] as? String } == ["Lullaby <b>", "Lullaby <b>"])
        let shown = f.json(f.send("GET", "/api/v1/listens"))
        #expect((shown["listens"] as? [[String: Any]])?.count == 4)
        #expect(f.send("GET", "/api/v1/listens", query: ["hidden": "maybe"]).status == 400)
    }

    @Test func theRulesPageListsInOrderEscapesAndItsFormsWork() throws {
        let f = try Fixture()
        #expect(f.send("POST", "/rules", body: "action=add&rule_action=hide&field=title&match=contains&value=%3Cscript%3Ex", form: true).status == 200)
        #expect(f.send("POST", "/rules", body: "action=add&rule_action=rewrite&field=title&match=regex&value=+-+Remastered+%5Cd%7B4%7D&replacement=",
                       form: true).status == 200)
        let page = f.send("GET", "/rules").text
        #expect(!page.contains("<script>x"), "hostile text is escaped")
        #expect(page.contains("&lt;script&gt;x"))
        let rewrite = page.range(of: "Rewrite the title")!, hide = page.range(of: "Hide plays whose title")!
        #expect(rewrite.lowerBound < hide.lowerBound, "listed in their order of application")
        let id = try f.store.rules().first { $0.action == .rewrite }!.id!
        let preview = f.send("POST", "/rules", body: "action=preview&id=\(id)", form: true)
        #expect(preview.status == 200 && preview.text.contains("2 plays would change"), "\(preview.text)")
        let applied = f.send("POST", "/rules", body: "action=apply&id=\(id)", form: true)
        #expect(applied.status == 200 && applied.text.contains("Undo it"))
        #expect(f.send("POST", "/rules", body: "action=add&rule_action=ignore&field=title&match=regex&value=%28", form: true).status == 400)
        #expect(f.send("POST", "/rules", body: "action=delete&id=\(id)", form: true).status == 200)
        #expect(try f.store.rules().count == 1)
        // Without a session or key the forms are not offered.
        #expect(!f.send("GET", "/rules", key: nil).text.contains("Apply to the past"))
    }
}
