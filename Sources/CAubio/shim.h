// aubio 0.4 for Swift: its beat tracker (aubio_tempo), for the beat clicks of a tempo-matched
// render. Its API is plain C that Swift calls as it is, so no wrappers. PacenoteTempo is the
// only importer.
#ifndef PACENOTE_CAUBIO_SHIM_H
#define PACENOTE_CAUBIO_SHIM_H

#include <aubio/aubio.h>

#endif
