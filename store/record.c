/* Placeholder until the record codec lands. */
#include "store/record.h"
