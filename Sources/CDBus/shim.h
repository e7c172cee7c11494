// libdbus for Swift: the reference D-Bus library, for BlueZ's API on the system bus
// (Bluetooth heart-rate straps). Swift calls it directly; this header only includes it.
// dbus_message_append_args is variadic and is not used: arguments are appended with
// DBusMessageIter, which Swift can call.
#ifndef PACENOTE_CDBUS_SHIM_H
#define PACENOTE_CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
