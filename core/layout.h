/* Where the `aoe` CLI, the shim and the shipped tunables lie relative to one
 * another: in an installed prefix (GNUInstallDirs, relative paths computed by
 * CMake) and in any build tree, which mirrors bin/, lib/ and share/aoe/.
 * One lookup for the CLI and the shim, so both always agree. */
#ifndef AOE_LAYOUT_H
#define AOE_LAYOUT_H

#include <stddef.h>

typedef enum { AOE_FROM_BIN, AOE_FROM_LIB } aoe_layout_from;
typedef enum { AOE_LAYOUT_CLI, AOE_LAYOUT_SHIM, AOE_LAYOUT_TUNABLES } aoe_layout_what;

/* Writes to out the path of what, seen from dir (the directory holding the
 * calling binary, of kind from): the first candidate that exists (a regular
 * file, or a directory for the tunables). Returns 0, or -1 with out set to the
 * installed candidate (for a message) when none exists or out is too small. */
int aoe_layout_find(const char *dir, aoe_layout_from from, aoe_layout_what what, char *out,
                    size_t len);

/* The directory holding the running executable (/proc/self/exe), 0 or -1. */
int aoe_layout_exe_dir(char *out, size_t len);

#endif
