import CSndfile
import Foundation

/// One libsndfile handle and its one owner: closed by `close()` when the caller needs the
/// result (a write's last flush can fail), or by `deinit` on every other way out.
final class SoundFile {
    private(set) var handle: OpaquePointer?
    let info: SF_INFO

    /// Opens `path` for reading; libsndfile's reason when it cannot (missing, not audio).
    init(reading path: String) throws(TempoRenderError) {
        if let failure = Self.load() { throw .cannotOpen(path: path, reason: failure) }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw .cannotOpen(path: path, reason: Self.reason(nil))
        }
        self.handle = handle
        self.info = info
    }

    /// Opens an already open descriptor for writing a 16-bit FLAC, leaving the descriptor
    /// to the caller, who fsyncs and closes it after `close()`.
    init(writingFLACTo descriptor: Int32, sampleRate: Int, channels: Int) throws(TempoRenderError) {
        if let failure = Self.load() { throw .writeFailed(reason: failure) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        guard sf_format_check(&info) != 0 else {
            throw .writeFailed(reason: "FLAC cannot hold \(channels) channels at \(sampleRate) Hz")
        }
        guard let handle = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0) else {
            throw .writeFailed(reason: Self.reason(nil))
        }
        self.handle = handle
        self.info = info
        // A stretched peak can pass full scale; clip it rather than let it wrap around.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    /// libsndfile is loaded on first use (see CSndfile's shim); why it cannot be, if so.
    static func load() -> String? {
        pn_sndfile_load().map { "libsndfile (libsndfile1) cannot be loaded: " + String(cString: $0) }
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// libsndfile's last error, for this file or (nil) for the last failed open.
    static func reason(_ handle: OpaquePointer?) -> String {
        guard let text = sf_strerror(handle) else { return "unknown error" }
        return String(cString: text)
    }

    var reason: String { Self.reason(handle) }

    /// Reads up to `frames` interleaved frames; fewer at the end of the file.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
    }

    func rewind() -> Bool {
        sf_seek(handle, 0, SEEK_SET) == 0
    }

    /// Writes `frames` interleaved frames; a short write (a full disk) is an error.
    func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(TempoRenderError) {
        guard frames > 0 else { return }
        let written = sf_writef_float(handle, buffer, sf_count_t(frames))
        guard written == sf_count_t(frames), sf_error(handle) == 0 else {
            throw .writeFailed(reason: reason)
        }
    }

    /// Sets a tag before the first frame is written (FLAC puts them in its header).
    func setTag(_ kind: Int32, _ value: String) throws(TempoRenderError) {
        guard sf_set_string(handle, kind, value) == 0 else { throw .writeFailed(reason: reason) }
    }

    /// Flushes and closes; the encoder's last block is written here, so this can fail too.
    func close() throws(TempoRenderError) {
        guard let handle else { return }
        self.handle = nil
        let status = sf_close(handle)
        guard status == 0 else {
            throw .writeFailed(reason: String(cString: sf_error_number(status)))
        }
    }
}
