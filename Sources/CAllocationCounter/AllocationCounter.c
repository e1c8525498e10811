#include "CAllocationCounter.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting;
static atomic_uint_fast64_t allocations;

static inline void count_one(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12; /* ENOMEM */
    *result = pointer;
    return 0;
}

void allocation_counter_enable(int enabled) { atomic_store(&counting, enabled); }

uint64_t allocation_counter_count(void) { return atomic_load(&allocations); }

void allocation_counter_reset(void) { atomic_store(&allocations, 0); }

int allocation_counter_is_active(void) {
    int was = atomic_load(&counting);
    atomic_store(&counting, 1);
    uint64_t before = atomic_load(&allocations);
    void *volatile probe = malloc(64);
    free(probe);
    uint64_t after = atomic_load(&allocations);
    atomic_store(&allocations, before);
    atomic_store(&counting, was);
    return after > before;
}
