import CAubio
import CEbur128
import CRubberBand
import CSndfile
import Foundation
import PacenoteTestSupport
import Testing

/// CSndfile, CRubberBand, CAubio and CEbur128 declare their libraries' types by hand and load the
/// libraries on first use (see their shims). What they declare must be what the libraries' own
/// headers define: a C program built against the real headers prints sizes, offsets and
/// constants, compared with the shims' as Swift imports them; the shims' tables, compiled
/// against the real headers, take each real function with no conversion; and each library
/// loads with every function its shim calls.
@Suite struct TempoDeclarationsTests {
    static func cflags() throws -> [String] {
        try run(try Tools.require("pkg-config"), ["--cflags", "sndfile", "rubberband", "aubio", "libebur128"]).stdout
            .split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test func theDeclaredLayoutsAndConstantsAreTheLibrariesOwn() throws {
        let dir = try TemporaryDirectory("tempo-layout")
        let source = dir.file("layout.c")
        try """
            #include <sndfile.h>
            #include <rubberband/rubberband-c.h>
            #include <aubio/aubio.h>
            #include <ebur128.h>
            #include <stddef.h>
            #include <stdio.h>
            int main(void) {
                printf("%zu %zu %zu %zu %zu %zu %zu\\n", sizeof(SF_INFO), offsetof(SF_INFO, samplerate), offsetof(SF_INFO, channels),
                       offsetof(SF_INFO, format), offsetof(SF_INFO, sections), offsetof(SF_INFO, seekable), sizeof(sf_count_t));
                printf("%d %d %d %d %d %d %d %d %d\\n", SF_FORMAT_FLAC, SF_FORMAT_PCM_16, SFC_SET_CLIPPING, SF_STR_TITLE, SF_STR_ARTIST,
                       SF_STR_ALBUM, SF_TRUE, SFM_READ, SFM_WRITE);
                printf("%d %d %d %d %d %zu\\n", RubberBandOptionProcessOffline, RubberBandOptionTransientsCrisp, RubberBandOptionWindowShort,
                       RubberBandOptionEngineFaster, RubberBandOptionEngineFiner, sizeof(RubberBandOptions));
                printf("%zu %zu %zu\\n", sizeof(fvec_t), offsetof(fvec_t, data), sizeof(smpl_t));
                printf("%d %d %d %d %d\\n", EBUR128_MODE_M, EBUR128_MODE_S, EBUR128_MODE_I, EBUR128_MODE_LRA, EBUR128_DUAL_MONO);
                printf("%d\\n", EBUR128_SUCCESS);
                return 0;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        _ = try run(try Tools.require("cc"), try Self.cflags() + [source, "-o", dir.file("layout")])
        let printed = try run(dir.file("layout"), []).stdout.split(separator: "\n").map(String.init)
        let info = [MemoryLayout<SF_INFO>.size, MemoryLayout<SF_INFO>.offset(of: \.samplerate)!, MemoryLayout<SF_INFO>.offset(of: \.channels)!,
                    MemoryLayout<SF_INFO>.offset(of: \.format)!, MemoryLayout<SF_INFO>.offset(of: \.sections)!,
                    MemoryLayout<SF_INFO>.offset(of: \.seekable)!, MemoryLayout<sf_count_t>.size]
        let sndfile = [SF_FORMAT_FLAC, SF_FORMAT_PCM_16, SFC_SET_CLIPPING, SF_STR_TITLE, SF_STR_ARTIST, SF_STR_ALBUM, SF_TRUE, SFM_READ, SFM_WRITE]
        let rubberband = [RubberBandOptionProcessOffline.rawValue, RubberBandOptionTransientsCrisp.rawValue, RubberBandOptionWindowShort.rawValue,
                          RubberBandOptionEngineFaster.rawValue, RubberBandOptionEngineFiner.rawValue].map { Int($0) }
            + [MemoryLayout<RubberBandOptions>.size]
        let fvec = [MemoryLayout<fvec_t>.size, MemoryLayout<fvec_t>.offset(of: \.data)!, MemoryLayout<smpl_t>.size]
        let ebur128 = [EBUR128_MODE_M, EBUR128_MODE_S, EBUR128_MODE_I, EBUR128_MODE_LRA, EBUR128_DUAL_MONO].map { Int($0) }
        #expect(printed == [info, sndfile.map { Int($0) }, rubberband, fvec, ebur128, [Int(EBUR128_SUCCESS)]].map { $0.map(String.init).joined(separator: " ") })
    }

    /// Each shim's table against the real prototypes (`-Werror=incompatible-pointer-types`).
    @Test(arguments: [
        ("CSndfile", "pn_sndfile", "#include <sndfile.h>", [
            "open": "sf_open", "open_fd": "sf_open_fd", "format_check": "sf_format_check", "command": "sf_command", "close": "sf_close",
            "strerror": "sf_strerror", "error_number": "sf_error_number", "error": "sf_error", "readf_float": "sf_readf_float",
            "writef_float": "sf_writef_float", "seek": "sf_seek", "set_string": "sf_set_string",
        ]),
        ("CRubberBand", "pn_rubberband", "#include <rubberband/rubberband-c.h>", [
            "create": "rubberband_new", "destroy": "rubberband_delete", "set_expected_input_duration": "rubberband_set_expected_input_duration",
            "set_max_process_size": "rubberband_set_max_process_size", "study": "rubberband_study", "process": "rubberband_process",
            "available": "rubberband_available", "retrieve": "rubberband_retrieve",
        ]),
        ("CAubio", "pn_aubio", "#include <aubio/aubio.h>", [
            "new_tempo": "new_aubio_tempo", "tempo_do": "aubio_tempo_do", "tempo_get_last_s": "aubio_tempo_get_last_s",
            "tempo_get_bpm": "aubio_tempo_get_bpm", "tempo_get_confidence": "aubio_tempo_get_confidence", "del_tempo": "del_aubio_tempo",
            "new_fvec": "new_fvec", "del_fvec": "del_fvec",
        ]),
        ("CEbur128", "pn_ebur128", "#include <ebur128.h>", [
            "init": "ebur128_init", "destroy": "ebur128_destroy", "set_channel": "ebur128_set_channel",
            "add_frames_float": "ebur128_add_frames_float", "loudness_global": "ebur128_loudness_global",
            "loudness_range": "ebur128_loudness_range",
        ]),
    ])
    func theTablesFunctionTypesAreTheRealPrototypes(module: String, table name: String, include: String, functions: [String: String]) throws {
        let shim = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/\(module)/shim.h").path
        let text = try String(contentsOfFile: shim, encoding: .utf8)
        let start = try #require(text.range(of: "typedef struct \(name) {"))
        let end = try #require(text.range(of: "} \(name);", range: start.upperBound..<text.endIndex))
        let table = String(text[start.lowerBound..<end.upperBound])
        let fields = table.split(separator: "\n").compactMap { line -> String? in
            guard let open = line.range(of: "(*"), let close = line.range(of: ")", range: open.upperBound..<line.endIndex) else { return nil }
            return String(line[open.upperBound..<close.lowerBound])
        }
        #expect(Set(fields) == Set(functions.keys), "\(module): \(fields)")
        let dir = try TemporaryDirectory("tempo-types")
        let source = dir.file("types.c")
        try """
            \(include)
            \(table)
            int main(void) {
                \(name) t;
            \(fields.map { "    t.\($0) = &\(functions[$0] ?? $0);" }.joined(separator: "\n"))
                (void)t;
                return 0;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let compiled = try run(try Tools.require("cc"), try Self.cflags() + ["-Werror=incompatible-pointer-types", "-Werror=implicit-function-declaration",
                                                                              "-c", source, "-o", dir.file("types.o")], allowFailure: true)
        #expect(compiled.status == 0, "\(module): \(compiled.stderr)")
    }

    @Test func theLibrariesLoadWithEveryFunctionTheShimsCall() {
        #expect(pn_sndfile_load().map { String(cString: $0) } == nil)
        #expect(pn_rubberband_load().map { String(cString: $0) } == nil)
        #expect(pn_aubio_load().map { String(cString: $0) } == nil)
        #expect(pn_ebur128_load().map { String(cString: $0) } == nil)
    }
}
