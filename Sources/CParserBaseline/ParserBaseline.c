#include "CParserBaseline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The shape of the example's package: a fixed array of values per line, all reset for each line.
enum { values_per_line = 8 };
static const long value_offset = 0x8000000L;

typedef struct {
    double value;
    int variable;
    int status;
    int range;
} baseline_value;

typedef struct {
    unsigned count;
    baseline_value values[values_per_line];
} baseline_package;

static double prefix_factor(char prefix) {
    switch (prefix) {
    case 'a': return 1e-18;
    case 'f': return 1e-15;
    case 'p': return 1e-12;
    case 'n': return 1e-9;
    case 'u': return 1e-6;
    case 'm': return 1e-3;
    case ' ': return 1;
    case 'k': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    case 'E': return 1e18;
    case 'i': return 1;
    default: return 0;
    }
}

// `field` is the value: seven hex digits and the prefix. The digits are copied to their own string
// first, because the prefix may be a hex digit too.
static double field_value(const char *field) {
    if (strncmp(field, "     nan", 8) == 0) {
        return NAN;
    }
    char digits[8];
    memcpy(digits, field, 7);
    digits[7] = '\0';
    long raw = strtol(digits, NULL, 16) - value_offset;
    return (double)raw * prefix_factor(field[7]);
}

// `rest` follows the value: ",1s,2rr…" or the variable's end.
static void read_metadata(const char *rest, baseline_value *value) {
    while (rest != NULL && *rest == ',') {
        if (rest[1] == '1') {
            value->status = (int)strtol(rest + 2, NULL, 16);
        } else if (rest[1] == '2') {
            value->range = (int)strtol(rest + 2, NULL, 16);
        }
        rest = strpbrk(rest + 1, ",;");
    }
}

static void parse_package(const char *line, baseline_package *package) {
    package->count = 0;
    for (unsigned index = 0; index < values_per_line; ++index) {
        package->values[index] = (baseline_value){.value = 0, .variable = 0, .status = -1, .range = -1};
    }
    if (line[1] == '\n') {
        return;
    }
    // `line` points at the `P`, then at each `;`: the variable starts one byte after it.
    const char *separator = line;
    unsigned count = 0;
    for (;;) {
        const char *variable = separator + 1;
        baseline_value *value = &package->values[count++];
        value->variable = ((unsigned char)variable[0] << 8) | (unsigned char)variable[1];
        value->value = field_value(variable + 2);
        read_metadata(variable + 10, value);
        separator = strchr(variable, ';');
        if (separator == NULL || count == values_per_line) {
            break;
        }
    }
    package->count = count;
}

baseline_totals baseline_parse_lines(const char *text, const uint32_t *offsets, size_t count) {
    baseline_totals totals = {.values = 0, .sum = 0};
    baseline_package package;
    for (size_t line = 0; line < count; ++line) {
        parse_package(text + offsets[line], &package);
        for (unsigned index = 0; index < package.count; ++index) {
            totals.sum += package.values[index].value;
        }
        totals.values += package.count;
    }
    return totals;
}
