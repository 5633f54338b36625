/* What both fakes answer about themselves: status names and the version of
 * the toolkit headers they were built against. */
#ifndef FC_STATUS_H
#define FC_STATUS_H

#include <cublas_api.h>

const char *fc_status_name(cublasStatus_t s);
const char *fc_status_string(cublasStatus_t s);
cublasStatus_t fc_property(libraryPropertyType type, int *value);
/* The version both fakes report: FAKECUBLAS_VERSION (an integer such as
 * 140000) when set, so a test can pose as another release; else the headers'
 * (the .so.13 fakes) or 120800 (the .so.12 ones: FC_DEFAULT_VERSION). */
int fc_version(void);
/* Loads the driver (libcuda.so.1, found through LD_LIBRARY_PATH: the fake in
 * $BUILD/fakecublas) as the real libraries do when a handle is created;
 * FAKECUBLAS_NO_DRIVER=1 skips it (a process without a driver). */
void fc_load_driver(void);

#endif
