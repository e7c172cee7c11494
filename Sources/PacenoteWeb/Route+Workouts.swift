/// The routes of heart rate, workouts, plans and the training figures: health data, private
/// like the history (`Route.table` holds them with the rest).
extension Route {
    static let workouts: [Endpoint] = [
        // Heart rate comes from a watch or a phone: a submit key may send it.
        Endpoint("/api/v1/hr", "hr", [RouteMethod("POST", Policy(.submit, body: .normal, crossOrigin: true)) { api, call in try api.ingestHeartRate(call.request) }]),
        // GET lists; POST starts a workout by hand.
        Endpoint("/api/v1/workouts", "workouts", keyRead(.privateRead, json { api, call in try api.workouts(call.query) }) + [
            RouteMethod("POST", write) { api, call in try api.startWorkout(call.request) },
        ]),
        Endpoint("/api/v1/workouts/{id}", "workout", id: .named("no workout"), keyRead(.privateRead, json { api, call in try api.workout(call.id) })),
        // A workout as a file for another training log (private like the workout).
        Endpoint("/api/v1/workouts/{id}/export.tcx", "workout_export", id: .named("no workout"),
                 keyRead(.privateRead) { api, call in try api.exportWorkout(call.id, format: "tcx") }),
        Endpoint("/api/v1/workouts/{id}/export.gpx", "workout_export", id: .named("no workout"),
                 keyRead(.privateRead) { api, call in try api.exportWorkout(call.id, format: "gpx") }),
        Endpoint("/api/v1/workouts/{id}/samples", "workout_samples", id: .named("no workout"),
                 keyRead(.privateRead, json { api, call in try api.workoutSamples(call.id) })),
        Endpoint("/api/v1/workouts/{id}/stop", "workout_stop", id: .named("no workout"), [
            RouteMethod("POST", write, json { api, call in try api.stopWorkout(call.id) }),
        ]),
        // Plans (issue 55): templates, private like the workouts they make; a plan file is imported whole.
        Endpoint("/api/v1/plans", "plans", keyRead(.privateRead, json { api, _ in try api.plansJSON() }) + [
            RouteMethod("POST", write) { api, call in try api.createPlan(call.request) },
        ]),
        Endpoint("/api/v1/plans/import", "plan_import", [RouteMethod("POST", write) { api, call in try api.importPlan(call.request) }]),
        Endpoint("/api/v1/plans/{id}", "plan", id: .named("no plan"), keyRead(.privateRead, json { api, call in try api.planJSON(call.id) }) + [
            RouteMethod("PUT", write, json { api, call in try api.updatePlan(call.id, call.request) }),
            RouteMethod("DELETE", change, json { api, call in try api.deletePlan(call.id) }),
        ]),
        Endpoint("/api/v1/plans/{id}/duplicate", "plan_duplicate", id: .named("no plan"), [
            RouteMethod("POST", change) { api, call in try api.duplicatePlan(call.id) },
        ]),
        Endpoint("/api/v1/plans/{id}/export", "plan_export", id: .named("no plan"), keyRead(.privateRead) { api, call in try api.exportPlan(call.id) }),
        // Starts a workout following the plan (or gives it to the one in progress).
        Endpoint("/api/v1/plans/{id}/start", "plan_start", id: .named("no plan"), [
            RouteMethod("POST", change) { api, call in try api.startPlan(call.id) },
        ]),
        // The pre-run playlist: built (or swapped and rebalanced) for the owner to look at; saving it changes MPD.
        Endpoint("/api/v1/plans/{id}/playlist", "plan_playlist", id: .named("no plan"), [
            RouteMethod("POST", Policy(.privateRead, body: .normal), json { api, call in try api.planPlaylistJSON(call.id, call.request) }),
        ]),
        Endpoint("/api/v1/plans/{id}/playlist/save", "plan_playlist_save", id: .named("no plan"), [
            RouteMethod("POST", write, json { api, call in try api.savePlanPlaylist(call.id, call.request) }),
        ]),
        // A planned workout: GET where it is; POST the runner's press (next, pause, resume).
        Endpoint("/api/v1/workouts/{id}/plan", "workout_plan", id: .named("no workout"), keyRead(.privateRead, json { api, call in try api.workoutPlanJSON(call.id) }) + [
            RouteMethod("POST", write, json { api, call in try api.markWorkoutPlan(call.id, call.request) }),
        ]),
        // Training load and heart-rate variability are health data, private like the workouts.
        Endpoint("/api/v1/training-load", "training_load", keyRead(.privateRead, json { api, call in try api.trainingLoadJSON(call.query) })),
        // The songs that made you faster on runs (health data too).
        Endpoint("/api/v1/faster-songs", "faster_songs", keyRead(.privateRead, json { api, call in try api.fasterSongsJSON(call.query) })),
        // GET lists resting readings; POST starts one (two minutes still with the strap on).
        Endpoint("/api/v1/hrv", "hrv", keyRead(.privateRead, json { api, call in try api.hrvReadingsJSON(call.query) }) + [
            RouteMethod("POST", write) { api, call in try api.startHRVReading(call.request) },
        ]),
        Endpoint("/api/v1/hrv/{id}", "hrv_reading", id: .named("no HRV reading"), keyRead(.privateRead, json { api, call in try api.hrvReadingJSON(call.id) })),
    ]
}
