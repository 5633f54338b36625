/* Which buffers (and images: the same rules, hooks/opencl_image.c) hold
 * bytes the program wrote. A buffer created without host
 * data holds whatever the allocator left there (stale process memory), so a
 * capture reads it only once the program initialised it: created with
 * COPY_HOST_PTR/USE_HOST_PTR, written by an enqueue call, or passed to a
 * kernel launch the shim saw. Otherwise it is replayed synthetic. */
#ifndef AOE_OPENCL_MEM_H
#define AOE_OPENCL_MEM_H

#include "hooks/opencl_internal.h"

/* Buffers tracked and not yet initialised: while 0, launches skip marking. */
extern atomic_size_t aoe_cl_unwritten;

/* A tracked buffer was created (parent: the buffer of a sub-buffer, or NULL). */
void aoe_cl_mem_created(cl_mem m, cl_mem_flags flags, cl_mem parent);
/* The buffer's last reference is gone. */
void aoe_cl_mem_released(cl_mem m);
/* The program wrote (part of) the buffer. */
void aoe_cl_mem_written(cl_mem m);
/* 1 when the program initialised the buffer. */
int aoe_cl_mem_initialised(cl_mem m);
/* After a launch: every buffer and image argument of kr counts as written. */
void aoe_cl_mem_launched(aoe_cl_kernel *kr);
void aoe_cl_mem_atfork_child(void);

#endif
