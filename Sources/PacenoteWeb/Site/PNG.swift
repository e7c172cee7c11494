import CZlib

/// A minimal PNG writer: 8-bit palette images in stored (uncompressed) deflate blocks.
/// Enough for the drawn cover tile that chat apps' link previews fetch as `og:image` —
/// they do not show SVG. A 300×300 tile is 90 KB, served once per preview and then cached.
enum PNG {
    struct RGB: Equatable {
        var r: UInt8, g: UInt8, b: UInt8
    }

    /// A PNG of `width`×`height` pixels, each an index into `palette` (at most 256 colours).
    static func encode(width: Int, height: Int, palette: [RGB], pixels: [UInt8]) -> [UInt8] {
        precondition(palette.count <= 256 && pixels.count == width * height)
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        append32(UInt32(width), to: &header)
        append32(UInt32(height), to: &header)
        header += [8, 3, 0, 0, 0]  // 8 bits, palette, deflate, adaptive filters, no interlace
        chunk("IHDR", header, into: &out)
        chunk("PLTE", palette.flatMap { [$0.r, $0.g, $0.b] }, into: &out)
        // Each row starts with its filter type (0: none).
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)
            raw += pixels[(y * width)..<((y + 1) * width)]
        }
        chunk("IDAT", zlibStored(raw), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    /// The same, compressed with zlib (the review's 1200×630 card: a few KB instead of
    /// 750), with `text` chunks (`tEXt`: keyword and Latin-1 text) before the pixels.
    static func encodeCompressed(width: Int, height: Int, palette: [RGB], pixels: [UInt8], text: [(String, String)] = []) -> [UInt8] {
        precondition(palette.count <= 256 && pixels.count == width * height)
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        append32(UInt32(width), to: &header)
        append32(UInt32(height), to: &header)
        header += [8, 3, 0, 0, 0]
        chunk("IHDR", header, into: &out)
        chunk("PLTE", palette.flatMap { [$0.r, $0.g, $0.b] }, into: &out)
        for (keyword, value) in text {
            chunk("tEXt", Array(keyword.utf8) + [0] + value.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : 0x3F }, into: &out)
        }
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)
            raw += pixels[(y * width)..<((y + 1) * width)]
        }
        chunk("IDAT", deflate(raw) ?? zlibStored(raw), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    /// A zlib stream of `data` (zlib's `compress2`, best compression), nil if zlib fails.
    static func deflate(_ data: [UInt8]) -> [UInt8]? {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &size, input.baseAddress, uLong(data.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK else { return nil }
        return Array(out.prefix(Int(size)))
    }

    /// A zlib stream of stored deflate blocks (RFC 1950/1951).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out.append(last)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        append32(adler32(data), to: &out)
        return out
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        append32(UInt32(data.count), to: &out)
        let typed = Array(type.utf8) + data
        out += typed
        append32(crc32(typed), to: &out)
    }

    private static func append32(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
