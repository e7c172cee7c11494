/// The player's routes (issue 57): a player's controls and queue, MPD's stored playlists,
/// the smart playlists and moods Pacenote keeps, the library to browse, and their pages.
/// Private like the history; every change is a write (`Route.table` holds them with the rest).
extension Route {
    static let player: [Endpoint] = [
        // A player's controls (issue 57): read like the status, pressed like any write.
        Endpoint("/api/v1/players/{name}", "player", keyRead(.privateRead, json { api, call in try api.playerControlsJSON(call.value) })),
        // Its queue (issue 57): read like the status, edited like any write; before `{action}`.
        Endpoint("/api/v1/players/{name}/queue", "player_queue", keyRead(.privateRead, json { api, call in try api.queueJSON(call.value) }) + [
            RouteMethod("POST", write) { api, call in try api.addToQueue(call.value, call.request) },
            RouteMethod("DELETE", change, json { api, call in try api.clearQueue(call.value) }),
        ]),
        Endpoint("/api/v1/players/{name}/queue/{id}", "player_queue_song", [
            RouteMethod("DELETE", change, json { api, call in try api.editQueueSong(call.values[0], id: call.values[1], action: "delete", call.request) }),
        ]),
        Endpoint("/api/v1/players/{name}/queue/{id}/{action}", "player_queue_song", [
            RouteMethod("POST", write, json { api, call in try api.editQueueSong(call.values[0], id: call.values[1], action: call.values[2], call.request) }),
        ]),
        Endpoint("/api/v1/players/{name}/{action}", "player_control", [
            RouteMethod("POST", write) { api, call in try api.controlPlayer(call.values[0], action: call.values[1], call.request) },
        ]),
        // MPD's stored playlists, and the smart playlists and moods Pacenote keeps among them:
        // private like the history, edited like any write.
        Endpoint("/api/v1/playlists", "playlists", keyRead(.privateRead, json { api, call in try api.playlistsJSON(call.query) }) + [
            RouteMethod("POST", write) { api, call in try api.createPlaylist(call.request) },
        ]),
        Endpoint("/api/v1/playlists/{name}", "playlist", keyRead(.privateRead) { api, call in try api.playlist(call.value, call.query) } + [
            RouteMethod("DELETE", change, json { api, call in try api.deletePlaylist(call.value, call.query) }),
        ]),
        Endpoint("/api/v1/playlists/{name}/{action}", "playlist_edit", [
            RouteMethod("POST", write) { api, call in try api.editPlaylist(call.values[0], action: call.values[1], call.request) },
        ]),
        Endpoint("/api/v1/smart-playlists", "smart_playlists", keyRead(.privateRead, json { api, _ in try api.smartPlaylistsJSON() }) + [
            RouteMethod("POST", write) { api, call in try api.createSmartPlaylist(call.request) },
        ]),
        Endpoint("/api/v1/smart-playlists/{id}", "smart_playlist", id: .named("no smart playlist"),
                 keyRead(.privateRead, json { api, call in try api.smartPlaylistJSON(call.id) }) + [
            RouteMethod("PUT", write, json { api, call in try api.updateSmartPlaylist(call.id, call.request) }),
            RouteMethod("DELETE", change, json { api, call in try api.deleteSmartPlaylist(call.id) }),
        ]),
        Endpoint("/api/v1/library/artists", "library_artists", keyRead(.privateRead, json { api, call in try api.libraryArtistsJSON(call.query) })),
        Endpoint("/api/v1/library/search", "library_search", keyRead(.privateRead, json { api, call in try api.librarySearchJSON(call.query) })),
        Endpoint("/api/v1/library/artists/{id}", "library_artist", id: .named("no artist"),
                 keyRead(.privateRead, json { api, call in try api.libraryArtistJSON(call.id) })),
        Endpoint("/api/v1/library/albums/{id}", "library_album", id: .named("no album"),
                 keyRead(.privateRead, json { api, call in try api.libraryAlbumJSON(call.id) })),
        Endpoint("/player", "page_player", page(.privateRead) { api, call in try api.playerPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.playerForm(call.request, back: "/player") }]),
        // The Play now / Play next / Add buttons of every track, album, artist, history, chart
        // and suggestion row, and the queue's and playlists' own buttons (issue 57).
        Endpoint("/player/queue", "page_player_queue", [form { api, call in try api.queueForm(call.request) }]),
        Endpoint("/library", "page_library", page(.privateRead) { api, call in try api.libraryPage(call.request, mayWrite: call.grant.isOwner) }),
        Endpoint("/playlists", "page_playlists", page(.privateRead) { api, call in try api.playlistsPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.playlistsForm(call.request) }]),
        Endpoint("/playlists/{name}", "page_playlist", page(.privateRead) { api, call in
            try api.playlistPage(call.value, call.request, mayWrite: call.grant.isOwner)
        } + [form { api, call in try api.playlistForm(call.value, call.request) }]),
    ]
}
