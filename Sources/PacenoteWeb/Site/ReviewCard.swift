import Foundation
import PacenoteCore

/// The published review's card for link previews: a 1200×630 PNG (the size chat apps and
/// social sites show large, like the song of the day's `cover.png`), drawn here with
/// `PixelFont`. It shows only the lines made from the sections the owner ticked
/// (`lines(_:sections:)`), which are also written into the PNG as its `Description` text.
enum ReviewCard {
    static let width = 1200, height = 630

    struct Line: Equatable {
        enum Style { case title, subtitle, figure, plain }
        var text: String
        var style: Style
    }

    /// What the card says for `report`, given what may be shown (at most nine lines, in this
    /// order). Heart rate only when ticked.
    static func lines(_ r: ReviewReport, title: String, subtitle: String, sections: Set<ReviewSection>) -> [Line] {
        var out = [Line(text: title, style: .title), Line(text: subtitle, style: .subtitle)]
        let t = r.totals
        if sections.contains(.totals) {
            out.append(Line(text: "\(counted(t.plays, "play")) · \(hours(t.seconds)) of music", style: .figure))
            out.append(Line(text: "\(counted(t.days, "day")) with music · \(counted(t.tracks, "song")) · \(counted(t.artists, "artist"))",
                            style: .plain))
        }
        // Heart rate, when ticked, before the charts: the card has room for nine lines.
        if sections.contains(.heartRate), let hr = r.heartRate {
            out.append(Line(text: "\(SiteFormat.plural(hr.workouts, "workout")) · \(hours(hr.trainingSeconds)) of training", style: .plain))
            if let power = hr.powerSongs.first { out.append(Line(text: "Power song: \(power.item.name)", style: .plain)) }
            if let faster = hr.fasterSongs.first, faster.effect.speedChange > 0 {
                out.append(Line(text: "Faster song: \(faster.item.name) (\(PaceEffect.words(faster.effect.speedChange)))", style: .plain))
            }
        }
        if sections.contains(.tracks), let top = r.topTracks.byPlays.first {
            out.append(Line(text: "Top song: \(top.name)" + (top.artist.map { " - \($0)" } ?? ""), style: .plain))
        }
        if sections.contains(.artists), let top = r.topArtists.byPlays.first {
            out.append(Line(text: "Top artist: \(top.name)", style: .plain))
        }
        if sections.contains(.albums), let top = r.topAlbums.byPlays.first {
            out.append(Line(text: "Top album: \(top.name)", style: .plain))
        }
        if sections.contains(.discoveries), r.discoveries.newTracks > 0 {
            let best = r.discoveries.topNewTracks.first.map { " · best: \($0.name)" } ?? ""
            out.append(Line(text: "\(counted(r.discoveries.newTracks, "new song"))\(best)", style: .plain))
        }
        if sections.contains(.highlights), let streak = r.longestStreak {
            out.append(Line(text: "Longest streak: \(SiteFormat.plural(streak.days, "day"))", style: .plain))
        }
        return Array(out.prefix(9))
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// "1 day", "1,204 days": the number grouped, the word in the singular for one.
    static func counted(_ n: Int, _ word: String) -> String { "\(grouped(n)) \(word)\(n == 1 ? "" : "s")" }

    static func hours(_ seconds: Double) -> String {
        seconds >= 3600 ? "\(grouped(Int((seconds / 3600).rounded()))) h" : "\(Int((seconds / 60).rounded())) min"
    }

    /// The palette: 64 steps of the background's gradient, then the text colours.
    static func palette(hue: Double) -> [PNG.RGB] {
        let top = Cover.hsl(hue, 0.45, 0.22), bottom = Cover.hsl((hue + 40).truncatingRemainder(dividingBy: 360), 0.55, 0.10)
        var colours: [PNG.RGB] = (0..<64).map { step in
            let t = Double(step) / 63
            func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8(max(0, min(255, (a + (b - a) * t).rounded()))) }
            return PNG.RGB(r: mix(top.0, bottom.0), g: mix(top.1, bottom.1), b: mix(top.2, bottom.2))
        }
        let accent = Cover.hsl((hue + 180).truncatingRemainder(dividingBy: 360), 0.75, 0.65)
        colours.append(PNG.RGB(r: 255, g: 255, b: 255))  // 64: text
        colours.append(PNG.RGB(r: 200, g: 205, b: 215))  // 65: muted text
        colours.append(PNG.RGB(r: UInt8(accent.0.rounded()), g: UInt8(accent.1.rounded()), b: UInt8(accent.2.rounded())))  // 66: accent
        return colours
    }

    /// The card as a PNG.
    static func png(_ lines: [Line], hue: Double) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let step = UInt8(y * 63 / (height - 1))
            for x in 0..<width { pixels[y * width + x] = step }
        }
        // The accent bar on the left, and a rule under the title.
        fill(&pixels, x: 0, y: 0, w: 24, h: height, colour: 66)
        var y = 56
        let left = 84
        for line in lines {
            // Nine rows a line: seven above it, two for descenders.
            let (scale, colour, gap): (Int, UInt8, Int) = switch line.style {
            case .title: (9, 64, 12)
            case .subtitle: (3, 65, 30)
            case .figure: (5, 66, 10)
            case .plain: (4, 64, 9)
            }
            guard y + PixelFont.height * scale <= height - 24 else { break }
            let room = (width - left - 48) / (6 * scale)
            var text = line.text
            if text.count > room { text = String(text.prefix(max(0, room - 3))) + "..." }
            draw(text, into: &pixels, x: left, y: y, scale: scale, colour: colour)
            y += PixelFont.height * scale + gap
            if line.style == .subtitle { fill(&pixels, x: left, y: y - 18, w: 160, h: 6, colour: 66) }
        }
        draw("PACENOTE", into: &pixels, x: width - 48 - 8 * 18, y: height - 52, scale: 3, colour: 65)
        let description = lines.map { PixelFont.plain($0.text) }.joined(separator: "\n")
        return PNG.encodeCompressed(width: width, height: height, palette: palette(hue: hue), pixels: pixels,
                                    text: [("Title", PixelFont.plain(lines.first?.text ?? "")), ("Description", description)])
    }

    static func fill(_ pixels: inout [UInt8], x: Int, y: Int, w: Int, h: Int, colour: UInt8) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) { pixels[row * width + column] = colour }
        }
    }

    static func draw(_ text: String, into pixels: inout [UInt8], x: Int, y: Int, scale: Int, colour: UInt8) {
        var pen = x
        for c in text {
            let glyph = PixelFont.glyph(c)
            for (row, bits) in glyph.enumerated() {
                for column in 0..<PixelFont.width where bits & (0x10 >> UInt8(column)) != 0 {
                    fill(&pixels, x: pen + column * scale, y: y + row * scale, w: scale, h: scale, colour: colour)
                }
            }
            pen += 6 * scale
            if pen >= width { break }
        }
    }
}
