#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Counts heap allocations of the whole process while enabled. Linking this library into an
/// executable replaces malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign with
/// wrappers that count each call and forward to glibc's own implementation (`__libc_*`).
void allocation_counter_enable(int enabled);
/// Allocation calls counted since the last reset (every call that can return new memory).
uint64_t allocation_counter_count(void);
/// Whether the wrappers are the ones the process uses (one test allocation is observed).
int allocation_counter_is_active(void);
void allocation_counter_reset(void);

#endif
