/* OpenCL error codes for people and as executor statuses. */
#ifndef AOE_EXEC_OPENCL_ERRORS_H
#define AOE_EXEC_OPENCL_ERRORS_H

#include "tuner/exec_status.h"

#include <CL/cl.h>

/* "CL_OUT_OF_RESOURCES", or "OpenCL error" for a code not listed. */
const char *aoe_cl_err_name(cl_int e);

/* The status of a failed call: allocation failures are OUT_OF_MEMORY; at a
 * launch (launch != 0), a work-size error is REFUSED; anything else
 * RUNTIME_ERROR. */
aoe_exec_status aoe_cl_status(cl_int e, int launch);
/* The status of a failed clCreateProgramWith* or clBuildProgram: out of
 * memory (retried later) when the runtime ran out of host memory or
 * resources, else the program does not build. */
aoe_exec_status aoe_cl_build_status(cl_int e);

#endif
