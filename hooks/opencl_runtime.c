/* The OpenCL runtime's descriptor (preload/runtime.h), named by
 * preload/runtime_list.h: where its real symbols live, the names the dlsym
 * wrapper passes to it, and its entry points for the poller, the exit and
 * fork. */
#include "hooks/opencl_internal.h"

#include <stddef.h>

/* The ICD loader (libOpenCL.so.1; libOpenCL.so where only the development
 * link exists). */
static const char *const sonames[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
/* Entry points are "cl" and a capital: clock_gettime, close never match. */
static const aoe_runtime_prefix prefixes[] = {{"cl", 1}, {NULL, 0}};
/* The ICD loader's frames are never the program's call site. */
static const char *const skip_objects[] = {"libOpenCL.so", NULL};

const aoe_runtime aoe_runtime_opencl = {
    .version = AOE_RUNTIME_VERSION,
    .name = "opencl",
    .sonames = sonames,
    .prefixes = prefixes,
    .skip_objects = skip_objects,
    .wrapper_for = aoe_cl_wrapper_for,
    .wrapper_for_version = NULL, /* OpenCL has no versioned entry-point lookup */
    .real_for = aoe_cl_real_for,
    .build_variants = aoe_cl_build_variants,
    .flush_counts = aoe_cl_flush_counts,
    .atfork_child = aoe_cl_atfork_child,
};
