#ifndef TELEMETRYKIT_CZLIB_SHIM_H
#define TELEMETRYKIT_CZLIB_SHIM_H

#include <zlib.h>

#endif
