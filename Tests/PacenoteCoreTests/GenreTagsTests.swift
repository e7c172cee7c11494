@testable import PacenoteCore
import Testing

/// How a genre text becomes genres (`GenreTags`, `EntityKey.genre`): the rules the store's
/// `track_genres` and every genre chart follow.
@Suite struct GenreTagsTests {
    @Test func aTextIsSplitOnSemicolonsSlashesCommasAndBars() {
        #expect(GenreTags.split("Drum & Bass; Jungle") == ["Drum & Bass", "Jungle"])
        #expect(GenreTags.split("Rock/Pop") == ["Rock", "Pop"])
        #expect(GenreTags.split("Rock / Pop") == ["Rock", "Pop"])
        #expect(GenreTags.split("Electronic, Techno,House") == ["Electronic", "Techno", "House"])
        #expect(GenreTags.split("Ambient|Drone") == ["Ambient", "Drone"])
        #expect(GenreTags.split("Jazz") == ["Jazz"])
    }

    @Test func namesWithAmpersandsPlusesAndHyphensStayWhole() {
        #expect(GenreTags.split("R&B") == ["R&B"])
        #expect(GenreTags.split("Hip-Hop + Rap") == ["Hip-Hop + Rap"])
        #expect(GenreTags.split("Drum and Bass") == ["Drum and Bass"])
    }

    @Test func emptyAndWhiteSpacePartsAreDropped() {
        #expect(GenreTags.split(nil as String?) == [])
        #expect(GenreTags.split("") == [])
        #expect(GenreTags.split("   ") == [])
        #expect(GenreTags.split(";;  ; / ,") == [])
        #expect(GenreTags.split(" Rock ;; ; Pop ") == ["Rock", "Pop"])
        #expect(GenreTags.split(["", "  ", "Rock"]) == ["Rock"])
    }

    @Test func aTracksDuplicatesAreOneKeptAsFirstWritten() {
        #expect(GenreTags.split("Rock; rock; ROCK") == ["Rock"])
        #expect(GenreTags.split("drum  and bass; Drum and Bass") == ["drum  and bass"])
        #expect(GenreTags.split(["Pop", "Rock/pop"]) == ["Pop", "Rock"])
    }

    @Test func mpdsRepeatedValuesAreEachSplitAndJoinedForStorage() {
        #expect(GenreTags.split(["Drum & Bass", "Jungle"]) == ["Drum & Bass", "Jungle"])
        #expect(GenreTags.joined(["Drum & Bass", "Jungle"]) == "Drum & Bass; Jungle")
        #expect(GenreTags.joined(["Rock/Pop", "Jazz"]) == "Rock; Pop; Jazz")
        #expect(GenreTags.joined([" ", ""]) == nil)
        // The stored text splits back into the same genres.
        #expect(GenreTags.split(GenreTags.joined(["Drum & Bass", "Jungle", "jungle"])) == ["Drum & Bass", "Jungle"])
    }

    @Test func theKeyFoldsCaseAndWhiteSpaceAsAnArtistsDoes() {
        #expect(EntityKey.genre("Drum  &  Bass") == "drum & bass")
        #expect(EntityKey.genre(" ROCK ") == "rock")
        #expect(EntityKey.genre("Électro") == EntityKey.artist("Électro"))
        #expect(EntityKey.genre("Drum & Bass") != EntityKey.genre("Drum and Bass"))
    }

    @Test func mpdsSeveralGenreTagsReachTheTrack() {
        let song = SongInfo(uri: "a.flac", tags: ["Title": "T", "Genre": "Drum & Bass"],
                            multiTags: ["Genre": ["Drum & Bass", "Jungle"]])
        #expect(song.track.genre == "Drum & Bass; Jungle")
        #expect(song.track.genres == ["Drum & Bass", "Jungle"])
        let one = SongInfo(uri: "b.flac", tags: ["Title": "T", "Genre": "Rock/Pop"])
        #expect(one.track.genres == ["Rock", "Pop"])
        #expect(SongInfo(uri: "c.flac", tags: ["Title": "T"]).track.genre == nil)
    }
}
