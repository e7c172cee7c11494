import Foundation

/// What a workout is called where it has no name of its own: its sport and the time of day
/// it began, as fitness apps title an activity ("Morning run", "Evening ride"), or "Morning
/// workout" when the sport is unknown. A detected workout's kind (`auto`, `manual`) is how it
/// began, not what it was, so it never names one (issue 52: every detected workout read "Auto").
public enum WorkoutName {
    /// The part of the day that `hour` (local, 0–23) falls in: morning from 5, afternoon
    /// from 12, evening from 17, night from 21.
    public static func partOfDay(hour: Int) -> String {
        switch hour {
        case 5..<12: "Morning"
        case 12..<17: "Afternoon"
        case 17..<21: "Evening"
        default: "Night"
        }
    }

    /// The noun for a sport as a workout file spells it (FIT `running`, `e_biking`; TCX
    /// `Running`, `Biking`, `Other`), or nil for none, `generic` and the like.
    public static func activity(sport: String?) -> String? {
        guard let sport else { return nil }
        let key = sport.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "_")
        switch key {
        case "", "generic", "other", "all", "multisport", "training", "transition", "fitness_equipment": return nil
        case "running", "run", "trail_running", "treadmill_running": return "run"
        case "cycling", "biking", "bike", "ride", "e_biking", "mountain_biking", "road_biking", "indoor_cycling": return "ride"
        case "walking", "walk": return "walk"
        case "hiking", "hike": return "hike"
        case "swimming", "swim", "lap_swimming", "open_water_swimming": return "swim"
        case "rowing", "row": return "row"
        default:
            // `sport_31` (a number the FIT profile does not list) says nothing.
            if key.hasPrefix("sport_") { return nil }
            return key.replacingOccurrences(of: "_", with: " ")
        }
    }

    /// The workout's title: its own name when it has one (not blank), else the part of the
    /// day and the sport ("Evening run"), else "… workout".
    public static func title(name: String?, sport: String?, startHour: Int) -> String {
        if let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        return "\(partOfDay(hour: startHour)) \(activity(sport: sport) ?? "workout")"
    }
}
