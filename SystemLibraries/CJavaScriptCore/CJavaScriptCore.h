// JavaScriptCore's C API from Debian's WebKitGTK build (libjavascriptcoregtk-4.0-dev), for
// TelemetryKitJavaScript on Linux. Apple platforms use the system framework instead.
#ifndef TELEMETRYKIT_CJAVASCRIPTCORE_H
#define TELEMETRYKIT_CJAVASCRIPTCORE_H

#include <JavaScriptCore/JavaScript.h>
#include <stdbool.h>

// The execution time limit is not in WebKitGTK's installed headers (it lives in WebKit's
// JSContextRefPrivate.h) but libjavascriptcoregtk-4.0 exports it; these declarations match
// that header. Without it a script that never returns would hang the event pipeline.

/// Called when a script in the group has run for longer than the limit; returning true
/// terminates it.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// Sets the time, in seconds, a script may run after entering the VM from the API.
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(
    JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context);

// From WebKitGTK's jsc/JSCOptions.h (gboolean is int), declared here so that the module does
// not pull in the GLib headers. The time limit is only enforced reliably with polling traps:
// with the default signal-based traps a second runaway script in the same VM is never
// interrupted (checked against libjavascriptcoregtk-4.0 2.50).

/// Sets a JavaScriptCore option; must run before the first VM of the process is created.
int jsc_options_set_boolean(const char *option, int value);

/// Reads a JavaScriptCore option.
int jsc_options_get_boolean(const char *option, int *value);

#endif
