// libsndfile for Swift: decoding the song to stretch and encoding the render as FLAC. Its
// API is plain C that Swift calls as it is, so no wrappers. PacenoteTempo is the only importer.
#ifndef PACENOTE_CSNDFILE_SHIM_H
#define PACENOTE_CSNDFILE_SHIM_H

#include <sndfile.h>

#endif
