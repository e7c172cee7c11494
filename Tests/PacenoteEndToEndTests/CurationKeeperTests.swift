import Foundation
import PacenoteTestSupport
import Testing

/// Corrections do what they say (issue 52, rows 7, 8, 9 and 17), through the real binary:
/// the name a merge keeps is chosen on the site by name, and afterwards the history, the
/// charts, the API, the export and a published review (page, preview text and card) show it
/// alone; the two albums of one title become one; a broken rule comes back with what was typed
/// and the reason beside the field; `/corrections` leads to the page.
@Suite struct CurationKeeperTests {
    static let form = "application/x-www-form-urlencoded"

    static func submit(_ daemon: PacenoteDaemon, artist: String, title: String, album: String, at seconds: Int) throws {
        let body = #"{"listen_type": "single", "payload": [{"listened_at": \#(seconds), "track_metadata": {"artist_name": "\#(artist)", "track_name": "\#(title)", "release_name": "\#(album)"}}]}"#
        let r = try daemon.post("/1/submit-listens", body: body)
        guard r.status == 200 else { throw HarnessError("submit-listens answered \(r.status): \(r.text)") }
    }

    /// `text` with every "The Kinks" taken out: what is left must not name "Kinks".
    static func namesOnlyTheKept(_ text: String) -> Bool {
        let rest = text.replacingOccurrences(of: "The Kinks", with: "").replacingOccurrences(of: "The%20Kinks", with: "")
        return text.contains("The Kinks") && !rest.contains("Kinks")
    }

    /// A page as the owner sees it (the key: logged in).
    static func owner(_ daemon: PacenoteDaemon, _ path: String) throws -> HTTPResult {
        try HTTP.get(daemon.base + path, headers: ["Authorization": "Token \(daemon.apiKey)"])
    }

    static func encoded(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    @Test func mergingKinksIntoTheKinksByNameShowsTheKeptNameEverywhere() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        // One play each: equal plays, so no count decides the keeper.
        try Self.submit(daemon, artist: "Kinks", title: "Village Green", album: "Village", at: 1_767_607_200)     // 2026-01-05
        try Self.submit(daemon, artist: "The Kinks", title: "Picture Book", album: "Village", at: 1_767_610_800)

        // The suggestion: "The Kinks" first (the fuller spelling on a tie), a button to keep either.
        let suggestions = try HTTP.get(daemon.base + "/api/v1/merges/suggestions").json?["suggestions"] as? [[String: Any]] ?? []
        let artist = try #require(suggestions.first { $0["kind"] as? String == "artist" }, "\(suggestions)")
        let names = (artist["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["The Kinks", "Kinks"] && artist["reason"] as? String == "“The”", "\(artist)")
        let album = try #require(suggestions.first { $0["kind"] as? String == "album" }, "\(suggestions)")
        #expect(album["reason"] as? String == "“The”", "the two Village albums differ by their artist's “The”: \(album)")
        let page = try Self.owner(daemon, "/curation").text
        #expect(page.contains("Keep “The Kinks”") && page.contains("Keep “Kinks”"), "both names are offered as the keeper")
        #expect(page.contains("id=\"merge-from\"") && page.contains("id=\"merge-into\""), "the merge-by-name form is there")

        // A published review of the year, frozen with both names.
        let share = try daemon.post("/api/v1/review/shares", body: #"{"from": "2026-01-01", "to": "2026-01-31"}"#)
        #expect(share.status == 201, "\(share.text)")
        let shared = try #require(share.json?["url"] as? String)
        let path = try #require(URL(string: shared)?.path)
        let before = try HTTP.get(daemon.base + path)
        #expect(before.status == 200 && before.text.contains("The Kinks") && !Self.namesOnlyTheKept(before.text), "\(before.text)")
        let cardBefore = try HTTP.get(daemon.base + path + "/card.png").body
        // The card's lines are also its PNG `Description` (tEXt, Latin-1).
        let cardText = { (png: Data) in String(decoding: png.map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self) }
        #expect(cardText(cardBefore).contains("The Kinks") && !Self.namesOnlyTheKept(cardText(cardBefore)), "the card named both")

        // Merge on the site by name, keeping "The Kinks".
        let merged = try daemon.post("/curation", body: Self.encoded([("action", "merge_names"), ("kind", "artist"), ("from", "Kinks"),
                                                                      ("into", "The Kinks")]), contentType: Self.form)
        #expect(merged.status == 303, "\(merged.status) \(merged.text)")
        let log = try HTTP.get(daemon.base + "/api/v1/curation").json?["entries"] as? [[String: Any]] ?? []
        let summary = log.first?["summary"] as? String ?? ""
        #expect(summary == "Merged artist “Kinks” into “The Kinks”, and 1 album of the same title", "\(log)")

        // The history (page and API), the charts and the artist page name the kept one only.
        let history = try Self.owner(daemon, "/history").text
        #expect(Self.namesOnlyTheKept(history), "the history page still shows “Kinks”")
        let listens = try daemon.listens()
        #expect(listens.count == 2 && listens.allSatisfy { $0.artist == "The Kinks" }, "\(listens.map(\.artist))")
        let stats = try HTTP.get(daemon.base + "/api/v1/stats?range=all&limit=100")
        let artists = (stats.json?["top_artists"] as? [[String: Any]] ?? []).compactMap { $0["artist"] as? String }
        #expect(artists == ["The Kinks"], "\(stats.text)")
        #expect(Self.namesOnlyTheKept(stats.text), "\(stats.text)")
        #expect(Self.namesOnlyTheKept(try HTTP.get(daemon.base + "/stats?range=all").text), "the stats page still shows “Kinks”")
        let id = try #require(Int(try daemon.sql("SELECT id FROM artists WHERE name = 'The Kinks'").trimmingCharacters(in: .whitespacesAndNewlines)))
        let artistPage = try HTTP.get(daemon.base + "/artists/\(id)").text
        #expect(artistPage.components(separatedBy: ">Village<").count == 2, "the artist page lists one “Village”")
        #expect(try daemon.sql("SELECT COUNT(*) FROM albums WHERE title = 'Village' AND merged_into IS NULL") == "1\n")

        // The published review: its page, preview text and card were taken again.
        let after = try HTTP.get(daemon.base + path)
        #expect(after.status == 200 && Self.namesOnlyTheKept(after.text), "\(after.text)")
        let cardAfter = try HTTP.get(daemon.base + path + "/card.png")
        #expect(cardAfter.status == 200 && cardAfter.body != cardBefore, "the card was drawn again")
        #expect(Self.namesOnlyTheKept(cardText(cardAfter.body)), "the card names the kept one only")
        #expect(try daemon.sql("SELECT snapshot_html FROM review_shares").contains("The Kinks"))

        // The export, with the daemon stopped.
        try daemon.stop()
        let dir = try TemporaryDirectory()
        let out = dir.file("plays.jsonl")
        let r = try PacenoteProcess.run(["export", "--db", daemon.db, "--format", "listenbrainz", "--output", out])
        #expect(r.status == 0, "\(r.stderr)")
        let exported = try String(contentsOfFile: out, encoding: .utf8)
        #expect(Self.namesOnlyTheKept(exported), "\(exported)")
    }

    @Test func aFailedMergeByNameKeepsTheFormAndSaysWhyBesideTheField() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        try Self.submit(daemon, artist: "Kinks", title: "Village Green", album: "Village", at: 1_767_607_200)
        let r = try daemon.post("/curation", body: Self.encoded([("action", "merge_names"), ("kind", "artist"), ("from", "Kinks"),
                                                                 ("into", "The Kinkz")]), contentType: Self.form)
        #expect(r.status == 404, "\(r.status)")
        #expect(r.text.contains(#"value="Kinks""#) && r.text.contains(#"value="The Kinkz""#), "the form keeps what was typed")
        let field = try #require(r.text.range(of: #"id="merge-into""#), "\(r.text)")
        let rest = String(r.text[field.upperBound...])
        #expect(rest.contains(#"aria-invalid="true""#) || r.text.contains(#"aria-invalid="true" aria-describedby="merge-into-error""#))
        let error = try #require(rest.range(of: #"id="merge-into-error""#), "the error is beside the field: \(rest.prefix(600))")
        #expect(rest[error.upperBound...].prefix(200).contains("No artist named “The Kinkz”"), "\(rest.prefix(600))")
        #expect(!r.text.contains("That did not work"))
        #expect(try daemon.sql("SELECT COUNT(*) FROM curation_log") == "0\n")
    }

    /// The error right after the field `id` in `html`, or nil.
    static func errorBeside(_ id: String, in html: String) -> String? {
        guard let field = html.range(of: #"id="\#(id)""#) else { return nil }
        let rest = html[field.upperBound...]
        guard let error = rest.range(of: #"id="\#(id)-error""#), rest[..<error.lowerBound].count < 400,
              let start = rest[error.upperBound...].firstIndex(of: ">"), let end = rest[start...].range(of: "</span>") else { return nil }
        return String(rest[rest.index(after: start)..<end.lowerBound])
    }

    @Test func theHistorysFormsAndTheMergeByIdComeBackAsSentWhenRefused() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        try Self.submit(daemon, artist: "Kinks", title: "Village Green", album: "Village", at: 1_767_607_200)
        try Self.submit(daemon, artist: "The Kinks", title: "Picture Book", album: "Village", at: 1_767_610_800)
        // An addition without its start: the add form open, the title kept, the reason at the start.
        var r = try daemon.post("/history", body: Self.encoded([("action", "add"), ("title", "Days"), ("artist", "The Kinks"),
                                                                ("started_at", "")]), contentType: Self.form)
        #expect(r.status == 400 && r.text.contains("<h1>History</h1>"), "\(r.status)")
        #expect(r.text.contains(#"<details class="card add-play" open="">"#) && r.text.contains(#"id="add-title" name="title" value="Days""#))
        #expect(Self.errorBeside("add-started-at", in: r.text) == "When did it start?", "\(r.text)")
        // A whole album that is not there: the reason at the album's id.
        r = try daemon.post("/history", body: Self.encoded([("action", "add"), ("album_id", "999"), ("started_at", "2026-01-05T20:00")]),
                            contentType: Self.form)
        #expect(r.status == 404 && Self.errorBeside("add-album-id", in: r.text) == "No album 999", "\(r.status) \(r.text)")
        // An edit that empties the title: that play's form open, the reason at the title.
        let id = try #require(try daemon.listens().first?.json["id"] as? Int)
        r = try daemon.post("/history", body: Self.encoded([("action", "edit"), ("id", String(id)), ("title", " "), ("artist", "Kinks"),
                                                            ("counted", "1")]), contentType: Self.form)
        #expect(r.status == 400 && r.text.contains(#"<details class="edit" open="">"#), "\(r.status)")
        #expect(Self.errorBeside("edit-\(id)-title", in: r.text) == "A track needs a title", "\(r.text)")
        // The merge by ids: letters for ids, then a merge of one merged already.
        r = try daemon.post("/curation", body: Self.encoded([("action", "merge"), ("kind", "artist"), ("from", "one"), ("into", "2")]),
                            contentType: Self.form)
        #expect(r.status == 400 && r.text.contains(#"<details class="card" id="merge-ids" open="">"#), "\(r.status)")
        #expect(Self.errorBeside("merge-ids-from", in: r.text) == "Give the ids to merge, separated by commas.", "\(r.text)")
        #expect(r.text.contains(#"id="merge-ids-from" name="from" value="one""#))
        let kinks = try daemon.sql("SELECT id FROM artists WHERE name = 'Kinks'").trimmingCharacters(in: .whitespacesAndNewlines)
        let kept = try daemon.sql("SELECT id FROM artists WHERE name = 'The Kinks'").trimmingCharacters(in: .whitespacesAndNewlines)
        let merge = Self.encoded([("action", "merge"), ("kind", "artist"), ("from", kinks), ("into", kept)])
        #expect(try daemon.post("/curation", body: merge, contentType: Self.form).status == 303)
        r = try daemon.post("/curation", body: merge, contentType: Self.form)
        #expect(r.status == 409 && r.text.contains("was merged into artist \(kept) already") && !r.text.contains("That did not work"),
                "\(r.status) \(r.text)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM curation_log") == "1\n")
    }

    @Test func aBrokenPatternOnTheRulesPageComesBackWithTheReasonBesideIt() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        let pattern = #" - Remastered (\d{4}$"#
        let r = try daemon.post("/rules", body: Self.encoded([("action", "add"), ("rule_action", "rewrite"), ("field", "title"),
                                                              ("match", "regex"), ("value", pattern), ("replacement", "")]),
                                contentType: Self.form)
        #expect(r.status == 400, "\(r.status)")
        #expect(!r.text.contains("That did not work") && r.text.contains("<h1>Rules</h1>"), "the Rules page itself")
        // The input holds the pattern as typed; right after it, the parser's reason with its offset.
        let input = try #require(r.text.range(of: #"<input id="value" name="value" value="\#(pattern)""#), "\(r.text)")
        let rest = String(r.text[input.upperBound...])
        let error = try #require(rest.range(of: #"id="value-error""#), "\(rest.prefix(800))")
        let message = String(rest[error.upperBound...].prefix(300))
        #expect(message.contains("not a valid regular expression") && message.contains("offset"), "\(message)")
        #expect(rest.prefix(upTo: error.lowerBound).count < 300, "the error comes right after the field")
        // The choices made stay chosen.
        #expect(r.text.contains(#"<option value="rewrite" selected="">"#) && r.text.contains(#"<option value="regex" selected="">"#), "\(r.text)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM curation_rules") == "0\n")
    }

    @Test func correctionsLeadsToTheCorrectionsPage() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        let r = try HTTP.get(daemon.base + "/corrections")
        #expect(r.status == 301 && (r.headers["Location"] ?? "").hasSuffix("/curation"), "\(r.status) \(r.headers)")
        #expect(try HTTP.get(daemon.base + "/curation").status == 200)
    }
}

/// The broken rule's page in a real browser at 1280 and 360 px: the pattern kept, the reason
/// right under its field, readable and inside the window; a merge by name likewise.
@Suite struct RulesFormBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/rules_form_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/rules-form-browser").path

    @Test func aBrokenPatternComesBackBesideItsFieldOnAPhoneToo() throws {
        let python = try SiteBrowserTests.python()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 28, "\(r.stdout)")
        #expect(Set(summary?["screenshots"] as? [String] ?? [])
            == ["rules-error-desktop.png", "rules-error-phone.png", "merge-error-desktop.png", "merge-error-phone.png"], "\(r.stdout)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM curation_rules") == "0\n")
    }
}
