import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    /// `POST /api/v1/import`: one export file as the body, the same files `pacenote import`
    /// takes (ListenBrainz JSON lines, JSON array or zip; Last.fm CSV; Spotify streaming
    /// history; Maloja export; a TCX, GPX or FIT workout), for servers without a shell. `?format=` forces the format,
    /// `?name=` names the file in problem reports. Answers the import's summary.
    func importListens(_ request: HTTPRequest) throws -> JSONValue {
        guard let importer = context.services.imports else { throw APIError.unavailable("imports are not enabled") }
        var forced: ImportFormat?
        if let text = request.query["format"], !text.isEmpty, text != "auto" {
            guard let format = ImportFormat(rawValue: text) else {
                throw APIError.badRequest("format: one of auto, \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))",
                                          code: "invalid_format")
            }
            forced = format
        }
        // The server writes the body to a private file as it arrives (`BodyLimit.import`).
        guard let path = request.bodyFile, let head = Self.head(of: path), !head.isEmpty else {
            throw APIError.badRequest("the body is empty: send the export file", code: "empty_body")
        }
        let feedback = forced == nil && ListenBrainzFeedback.isFeedback(head: head)
        let kind = feedback ? .listenBrainzLines : ImportFileKind.detect(head: head, forced: forced)
        guard let kind else {
            throw APIError(kind: .unsupportedMediaType, code: "unsupported_format",
                           message: "not a ListenBrainz, Last.fm, Spotify or Maloja export, nor a TCX, GPX or FIT workout")
        }
        if kind.isWorkout { return try importWorkout(path) }
        let name = request.query["name"].flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } ?? "upload"
        let summary: ImportSummary
        do {
            summary = try importer.importListens(path: path, format: forced, name: name)
        } catch let error as StoreError {
            throw error
        } catch {
            throw APIError(kind: .unsupportedMediaType, code: "unsupported_format", message: "\(error)")
        }
        return .object([
            ("format", .string(feedback ? "listenbrainz_feedback" : kind.format?.rawValue ?? (kind == .zip ? "listenbrainz" : "unknown"))),
            ("read", .int(Int64(summary.read))),
            ("imported", .int(Int64(summary.imported))),
            ("duplicates", .int(Int64(summary.duplicates))),
            ("skipped", .int(Int64(summary.skipped))),
            ("errors", .int(Int64(summary.errors))),
            ("feelings", .object([("liked", .int(Int64(summary.liked))), ("disliked", .int(Int64(summary.disliked))),
                                  ("unmatched", .int(Int64(summary.feelingsUnmatched)))])),
            ("problems", .array(summary.problems.map { p in
                .object([("file", .string(p.file)), ("line", .int(Int64(p.line))), ("message", .string(p.message))])
            })),
        ])
    }

    /// A workout file: stored whole or not at all, as `pacenote import` stores it.
    func importWorkout(_ path: String) throws -> JSONValue {
        guard let importer = context.services.imports else { throw APIError.unavailable("heart rate is not enabled") }
        let result: WorkoutImport
        do {
            result = try importer.importWorkout(path: path)
        } catch let error as WorkoutFileRejected {
            throw APIError.badRequest(error.description, code: "invalid_workout_file")
        }
        return .object([
            ("format", .string(result.format)),
            ("samples", .int(Int64(result.samples))),
            ("stored", .int(Int64(result.stored))),
            ("workout_id", result.workoutID.map { .int($0) } ?? .null),
            ("name", result.name.map { .string($0) } ?? .null),
            ("sport", result.sport.map { .string($0) } ?? .null),
            ("motion_samples", .int(Int64(result.motion))),
            ("motion_stored", .int(Int64(result.motionStored))),
            ("laps", .int(Int64(result.laps))),
            ("cleaned", .array(result.cleaned.map { .string($0) })),
        ])
    }

    /// The file's first 64 KiB, which tell its format.
    static func head(of path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 65_536)).map { Array($0) } ?? []
    }
}
