/* Placeholder until job files land. */
#include "tuner/job.h"
