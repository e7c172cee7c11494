// Rubber Band Library 3.x for Swift: its plain C API, which Swift calls as it is, so no
// wrappers. PacenoteTempo is the only importer.
#ifndef PACENOTE_CRUBBERBAND_SHIM_H
#define PACENOTE_CRUBBERBAND_SHIM_H

#include <rubberband/rubberband-c.h>

#endif
