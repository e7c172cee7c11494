// libmpdclient for Swift. Its API is plain C with no variadics or macros that Swift
// needs, so this header only gathers the includes in one place.
#ifndef PACENOTE_CMPDCLIENT_SHIM_H
#define PACENOTE_CMPDCLIENT_SHIM_H

#include <mpd/client.h>

#endif
