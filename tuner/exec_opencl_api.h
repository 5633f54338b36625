/* The OpenCL functions the executor calls, resolved at run time so that `aoe`
 * links no OpenCL library: bank commands and simulated tuning work where no
 * runtime is installed, and only opening a job needs one. */
#ifndef AOE_EXEC_OPENCL_API_H
#define AOE_EXEC_OPENCL_API_H

#include <CL/cl.h>
#include <CL/cl_icd.h> /* cl_api_<name>: the real prototypes as pointer types */
#include <stddef.h>

/* Every function the executor uses; X(name) once each. */
#define AOE_CL_FUNCTIONS(X)                                                                        \
    X(clGetPlatformIDs)                                                                            \
    X(clGetPlatformInfo)                                                                           \
    X(clGetDeviceIDs)                                                                              \
    X(clGetDeviceInfo)                                                                             \
    X(clCreateContext)                                                                             \
    X(clReleaseContext)                                                                            \
    X(clCreateCommandQueueWithProperties)                                                          \
    X(clReleaseCommandQueue)                                                                       \
    X(clCreateBuffer)                                                                              \
    X(clCreateSubBuffer)                                                                           \
    X(clReleaseMemObject)                                                                          \
    X(clCreateProgramWithSource)                                                                   \
    X(clCreateProgramWithBinary)                                                                   \
    X(clBuildProgram)                                                                              \
    X(clGetProgramBuildInfo)                                                                       \
    X(clReleaseProgram)                                                                            \
    X(clCreateKernel)                                                                              \
    X(clSetKernelArg)                                                                              \
    X(clGetKernelWorkGroupInfo)                                                                    \
    X(clGetKernelArgInfo)                                                                          \
    X(clReleaseKernel)                                                                             \
    X(clEnqueueFillBuffer)                                                                         \
    X(clEnqueueCopyBuffer)                                                                         \
    X(clEnqueueReadBuffer)                                                                         \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clFinish)                                                                                    \
    X(clWaitForEvents)                                                                             \
    X(clGetEventProfilingInfo)                                                                     \
    X(clReleaseEvent)                                                                              \
    X(clCreateImage)                                                                               \
    X(clGetImageInfo)                                                                              \
    X(clEnqueueCopyImage)                                                                          \
    X(clEnqueueWriteImage)                                                                         \
    X(clEnqueueReadImage)                                                                          \
    X(clCreateSampler)                                                                             \
    X(clReleaseSampler)

/* Functions a loader may lack (OpenCL 2.0 and later): NULL when absent. */
#define AOE_CL_OPTIONAL(X) X(clCreateSamplerWithProperties)

typedef struct {
#define AOE_CL_FIELD(name) cl_api_##name name;
    AOE_CL_FUNCTIONS(AOE_CL_FIELD)
#undef AOE_CL_FIELD
} aoe_cl_api;

typedef struct {
#define AOE_CL_FIELD(name) cl_api_##name name;
    AOE_CL_OPTIONAL(AOE_CL_FIELD)
#undef AOE_CL_FIELD
} aoe_cl_optional_api;

/* Filled by aoe_cl_api_load; read only after it returned 0. */
extern aoe_cl_api aoe_cl;
extern aoe_cl_optional_api aoe_cl_opt;

/* Call sites read CL(clFinish)(q): the name stays greppable. */
#define CL(name) (aoe_cl.name)

/* Opens libOpenCL.so.1 and resolves every function, once per process (later
 * calls return the first result). Returns 0, or -1 with one line in err naming
 * the library or the missing symbol. */
int aoe_cl_api_load(char *err, size_t errlen);

#endif
