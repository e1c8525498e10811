#ifndef C_PARSER_BASELINE_H
#define C_PARSER_BASELINE_H

#include <stddef.h>
#include <stdint.h>

/// What a baseline parse found: the values of all lines, and their sum (NaN counts as a value and
/// makes the sum NaN).
typedef struct {
    uint64_t values;
    double sum;
} baseline_totals;

/// Parses `count` `P` lines the way PalmSens' C example (`mscript.c`, `parse_data_package`) does:
/// every line is a NUL-terminated string that ends in "\n" and starts at `text + offsets[i]`; each
/// line is parsed into a fixed package of at most 8 values (cleared first), its variables found
/// with `strchr(';')`, the seven hex digits copied out and converted with `strtol`, the SI prefix
/// looked up in a `switch`, and the metadata read with `strtol` and `strpbrk`. It checks nothing,
/// as the example does not: it is a yardstick for Bench, not a decoder.
baseline_totals baseline_parse_lines(const char *text, const uint32_t *offsets, size_t count);

#endif
