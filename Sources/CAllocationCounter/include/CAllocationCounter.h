#ifndef CALLOCATIONCOUNTER_H
#define CALLOCATIONCOUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, aligned allocations) the process made since it started.
uint64_t cac_allocation_count(void);

#endif
