import Testing
@testable import PacenoteCore

/// A workout without a name of its own is titled by the time of day and the sport
/// ("Morning run"), never by how it began ("Auto").
@Suite struct WorkoutNameTests {
    @Test func partsOfTheDayHaveTheirEdgesWhereTheCommentSays() {
        let expected: [(Int, String)] = [(0, "Night"), (4, "Night"), (5, "Morning"), (11, "Morning"), (12, "Afternoon"),
                                         (16, "Afternoon"), (17, "Evening"), (20, "Evening"), (21, "Night"), (23, "Night")]
        for (hour, part) in expected { #expect(WorkoutName.partOfDay(hour: hour) == part, "hour \(hour)") }
    }

    @Test func aDetectedWorkoutIsNamedAfterTheTimeOfDay() {
        #expect(WorkoutName.title(name: nil, sport: nil, startHour: 7) == "Morning workout")
        #expect(WorkoutName.title(name: nil, sport: nil, startHour: 18) == "Evening workout")
        #expect(WorkoutName.title(name: "   ", sport: nil, startHour: 14) == "Afternoon workout")
        #expect(WorkoutName.title(name: nil, sport: nil, startHour: 23) == "Night workout")
    }

    @Test func theSportOfAFileNamesTheActivity() {
        #expect(WorkoutName.title(name: nil, sport: "running", startHour: 6) == "Morning run")
        #expect(WorkoutName.title(name: nil, sport: "Running", startHour: 19) == "Evening run")  // TCX spelling
        #expect(WorkoutName.title(name: nil, sport: "Biking", startHour: 13) == "Afternoon ride")
        #expect(WorkoutName.title(name: nil, sport: "e_biking", startHour: 13) == "Afternoon ride")
        #expect(WorkoutName.title(name: nil, sport: "swimming", startHour: 9) == "Morning swim")
        #expect(WorkoutName.title(name: nil, sport: "cross_country_skiing", startHour: 10) == "Morning cross country skiing")
    }

    @Test func sportsThatSayNothingFallBackToWorkout() {
        for sport in ["generic", "Other", "fitness_equipment", "sport_99", "", "training"] {
            #expect(WorkoutName.title(name: nil, sport: sport, startHour: 8) == "Morning workout", "\(sport)")
        }
    }

    @Test func anOwnNameWins() {
        #expect(WorkoutName.title(name: "Intervals", sport: "running", startHour: 8) == "Intervals")
        #expect(WorkoutName.title(name: " Long run ", sport: nil, startHour: 8) == "Long run")
    }

    @Test func theKindNeverShows() {
        for hour in 0..<24 {
            let title = WorkoutName.title(name: nil, sport: nil, startHour: hour)
            #expect(!title.lowercased().contains("auto") && !title.lowercased().contains("manual"))
        }
    }
}
