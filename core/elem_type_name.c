/* C type names as runtimes report kernel argument types (OpenCL C's
 * clGetKernelArgInfo, CUDA C spellings) -> element types, so that a job says
 * what its buffers hold (typed verification compares floats with tolerances,
 * integers exactly). Plain text: no runtime header. */
#include "core/elem_type.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    aoe_elem_type elem;
} c_types[] = {
    {"char", AOE_ELEM_I8},
    {"uchar", AOE_ELEM_U8},
    {"short", AOE_ELEM_I16},
    {"ushort", AOE_ELEM_U16},
    {"int", AOE_ELEM_I32},
    {"uint", AOE_ELEM_U32},
    {"long", AOE_ELEM_I64},
    {"ulong", AOE_ELEM_U64},
    {"half", AOE_ELEM_F16},
    {"float", AOE_ELEM_F32},
    {"double", AOE_ELEM_F64},
    /* CUDA C and <stdint.h> spellings */
    {"__half", AOE_ELEM_F16},
    {"__nv_bfloat16", AOE_ELEM_BF16},
    {"int8_t", AOE_ELEM_I8},
    {"uint8_t", AOE_ELEM_U8},
    {"int16_t", AOE_ELEM_I16},
    {"uint16_t", AOE_ELEM_U16},
    {"int32_t", AOE_ELEM_I32},
    {"uint32_t", AOE_ELEM_U32},
    {"int64_t", AOE_ELEM_I64},
    {"uint64_t", AOE_ELEM_U64},
};

/* The element type a base name stands for, or AOE_ELEM_COUNT for none. */
static aoe_elem_type lookup(const char *base)
{
    for (size_t i = 0; i < sizeof c_types / sizeof c_types[0]; i++)
        if (!strcmp(base, c_types[i].name)) return c_types[i].elem;
    return AOE_ELEM_COUNT;
}

/* The base name: qualifiers dropped, "unsigned T" as "uT", one trailing '*'
 * and a vector width (2, 3, 4, 8, 16) removed. Empty when it is none of these. */
static void base_name(const char *type_name, char *out, size_t outlen)
{
    char buf[64], *save = NULL;
    int is_unsigned = 0, pointer = 0;
    out[0] = '\0';
    if (strlen(type_name) >= sizeof buf) return;
    snprintf(buf, sizeof buf, "%s", type_name);
    for (char *p = buf; *p; p++)
        if (*p == '*') {
            if (pointer++ || p[strspn(p + 1, " ") + 1]) return; /* one '*', at the end */
            *p = ' ';
        }
    for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(w, "const") || !strcmp(w, "volatile") || !strcmp(w, "restrict") ||
            !strcmp(w, "__global") || !strcmp(w, "global") || !strcmp(w, "__constant") ||
            !strcmp(w, "constant") || !strcmp(w, "__local") || !strcmp(w, "local") ||
            !strcmp(w, "signed"))
            continue;
        if (!strcmp(w, "unsigned")) {
            is_unsigned = 1;
            continue;
        }
        if (out[0]) { /* two type words ("long long", "struct s"): not ours */
            out[0] = '\0';
            return;
        }
        snprintf(out, outlen, "%s%s", is_unsigned ? "u" : "", w);
    }
    if (is_unsigned && !out[0]) snprintf(out, outlen, "uint"); /* plain "unsigned" */
    if (lookup(out) != AOE_ELEM_COUNT) return; /* "__nv_bfloat16", "int8_t": no width */
    size_t n = strlen(out), d = n;
    while (d > 0 && out[d - 1] >= '0' && out[d - 1] <= '9') d--;
    if (d < n) {
        const char *w = out + d;
        if (d == 0 || (strcmp(w, "2") && strcmp(w, "3") && strcmp(w, "4") && strcmp(w, "8") &&
                       strcmp(w, "16"))) {
            out[0] = '\0';
            return;
        }
        out[d] = '\0';
    }
}

aoe_elem_type aoe_elem_of_type_name(const char *type_name, uint64_t size)
{
    char base[64];
    if (!type_name) return AOE_ELEM_BYTES;
    base_name(type_name, base, sizeof base);
    aoe_elem_type e = lookup(base);
    return e == AOE_ELEM_COUNT || size % aoe_elem_size(e) ? AOE_ELEM_BYTES : e;
}
