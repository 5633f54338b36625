/* What both fakes answer about themselves: status names and the version of
 * the toolkit headers they were built against. */
#ifndef FC_STATUS_H
#define FC_STATUS_H

#include <cublas_api.h>

const char *fc_status_name(cublasStatus_t s);
const char *fc_status_string(cublasStatus_t s);
cublasStatus_t fc_property(libraryPropertyType type, int *value);

#endif
