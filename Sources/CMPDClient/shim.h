// libmpdclient for Swift. Its API is plain C; the one wrapper below exists because Swift
// cannot call the variadic mpd_send_command.
#ifndef PACENOTE_CMPDCLIENT_SHIM_H
#define PACENOTE_CMPDCLIENT_SHIM_H

#include <mpd/client.h>

/// `config`: MPD's settings for local clients (music_directory), which libmpdclient 2.20
/// has no function for. MPD answers it only over a Unix socket.
static inline bool pacenote_mpd_send_config(struct mpd_connection *connection) {
    return mpd_send_command(connection, "config", NULL);
}

#endif
