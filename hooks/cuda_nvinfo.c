/* See cuda_nvinfo.h. The layout, as ptxas writes it (CUDA 13, sm_75 to
 * sm_120, checked against `cuobjdump -elf`; docs/design.md, "Tuning CUDA
 * kernels"): a kernel's parameters are described in the section
 * `.nv.info.<lowered name>` (type SHT_LOPROC, "CUDA_INFO"), a run of
 * little-endian records, each a format byte, an attribute byte and 16 bits:
 *   EIFMT_NVAL (1), EIFMT_BVAL (2), EIFMT_HVAL (3): the 16 bits are the value
 *     (or nothing); the record is those 4 bytes;
 *   EIFMT_SVAL (4): the 16 bits are the payload's size; the payload follows
 *     (records start on 4-byte boundaries).
 * EIATTR_KPARAM_INFO (0x17, SVAL, 12 bytes): u32 index, u16 ordinal, u16
 * byte offset, u32 whose top 14 bits are the size (the low bits: pointee
 * alignment, space, constant bank). One record per parameter, in any order.
 * EIATTR_PARAM_CBANK (0x0a, SVAL, 8 bytes): u32 symbol, u32 = offset of the
 * parameters in constant bank 0 (low 16 bits) | their total size (high 16).
 * EIATTR_CBANK_PARAM_SIZE (0x19, HVAL): the total size again.
 * A kernel without parameters has no KPARAM_INFO and no PARAM_CBANK.
 *
 * Untrusted input: every length is checked against what holds it; a section
 * that breaks any rule (a record past its end, an unknown format, ordinals
 * that are not 0..n-1 once each, parameters that overlap, leave their order
 * or pass the total) gives its kernel no layout. libelf reads a private copy
 * of the image (elf_memory may write into the memory it is given; the
 * caller's image may be read-only). */
#include "hooks/cuda_nvinfo.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#define SHT_CUDA_INFO 0x70000000u /* SHT_LOPROC */
#define NVINFO_PREFIX ".nv.info."

enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };
enum { EIATTR_PARAM_CBANK = 0x0a, EIATTR_KPARAM_INFO = 0x17, EIATTR_CBANK_PARAM_SIZE = 0x19 };

typedef struct {
    char *name;
    int nparams;
    aoe_cu_param *params; /* by ordinal */
} nv_kernel;

struct aoe_cu_nvinfo {
    int nkernels;
    nv_kernel *kernels;
};

static unsigned rd16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One walk over a section's records: counts the KPARAM_INFO records (out
 * NULL) or fills out (by ordinal, set[] marks the ordinals seen). The
 * total parameter size, or 0 when the section names none. -1: malformed. */
static long walk(const unsigned char *b, size_t n, aoe_cu_param *out, unsigned char *set,
                 int nparams, int *count)
{
    long total = 0;
    size_t pos = 0;
    *count = 0;
    while (pos < n) {
        if (n - pos < 4) return -1; /* a torn record header */
        unsigned fmt = b[pos], attr = b[pos + 1], v = rd16(b + pos + 2);
        pos += 4;
        if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
            if (attr == EIATTR_CBANK_PARAM_SIZE && fmt == EIFMT_HVAL) {
                if (total && total != (long)v) return -1;
                total = v;
            }
            continue;
        }
        if (fmt != EIFMT_SVAL || v > n - pos) return -1;
        const unsigned char *p = b + pos;
        pos += v;
        pos += (4 - pos % 4) % 4; /* the next record's boundary (may pass n: loop ends) */
        if (attr == EIATTR_PARAM_CBANK) {
            if (v < 8) return -1;
            long t = (long)(rd32(p + 4) >> 16);
            if (total && total != t) return -1;
            total = t;
        } else if (attr == EIATTR_KPARAM_INFO) {
            if (v < 12) return -1;
            unsigned ord = rd16(p + 4), off = rd16(p + 6);
            uint32_t size = rd32(p + 8) >> 18;
            if (out) {
                if ((int)ord >= nparams || set[ord] || !size) return -1;
                set[ord] = 1;
                out[ord].offset = off;
                out[ord].size = size;
            }
            ++*count;
        }
    }
    return total;
}

/* The parameters of one .nv.info.<kernel> section into k; 0, or -1 when
 * the section is malformed or out of memory (the kernel gets no layout). */
static int read_section(const unsigned char *b, size_t n, nv_kernel *k)
{
    int count;
    long total = walk(b, n, NULL, NULL, 0, &count);
    if (total < 0) return -1;
    if (!count) return total ? -1 : 0; /* a total with no parameter: inconsistent */
    aoe_cu_param *params = calloc((size_t)count, sizeof *params);
    unsigned char *set = calloc((size_t)count, 1);
    int again, ok = params && set && walk(b, n, params, set, count, &again) == total;
    /* ordinals 0..count-1 once each (set by the walk), in order, disjoint, inside the total */
    uint64_t end = 0;
    for (int i = 0; ok && i < count; i++) {
        ok = set[i] && params[i].offset >= end;
        end = (uint64_t)params[i].offset + params[i].size;
        if (total && end > (uint64_t)total) ok = 0;
    }
    free(set);
    if (!ok) {
        free(params);
        return -1;
    }
    k->nparams = count;
    k->params = params;
    return 0;
}

static pthread_once_t g_elf_once = PTHREAD_ONCE_INIT;
static int g_elf_ok;

static void elf_init(void)
{
    g_elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* Whether the bytes start like a 64-bit little-endian CUDA ELF. */
static int is_cubin(const unsigned char *b, size_t len)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG)) return 0;
    if (b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB) return 0;
    return rd16(b + offsetof(Elf64_Ehdr, e_machine)) == EM_CUDA;
}

static int add_kernel(aoe_cu_nvinfo *t, size_t *cap, const char *name, Elf_Scn *scn)
{
    for (int i = 0; i < t->nkernels; i++)
        if (!strcmp(t->kernels[i].name, name)) return 0; /* the first section wins */
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (!d || (d->d_size && !d->d_buf)) return 0;
    nv_kernel k = {0};
    if (read_section(d->d_buf, d->d_size, &k)) return 0;
    if ((size_t)t->nkernels == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        nv_kernel *nk = realloc(t->kernels, ncap * sizeof *nk);
        if (!nk) goto oom;
        t->kernels = nk;
        *cap = ncap;
    }
    if (!(k.name = strdup(name))) goto oom;
    t->kernels[t->nkernels++] = k;
    return 0;
oom:
    free(k.params);
    return -1;
}

aoe_cu_nvinfo *aoe_cu_nvinfo_read(const void *image, size_t len)
{
    if (!image || !is_cubin(image, len)) return NULL;
    pthread_once(&g_elf_once, elf_init);
    if (!g_elf_ok) return NULL;
    char *copy = malloc(len);
    aoe_cu_nvinfo *t = calloc(1, sizeof *t);
    Elf *e = NULL;
    size_t shstrndx, cap = 0;
    int ok = copy && t;
    if (ok) {
        memcpy(copy, image, len);
        e = elf_memory(copy, len);
        ok = e && elf_kind(e) == ELF_K_ELF && !elf_getshdrstrndx(e, &shstrndx);
    }
    for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_CUDA_INFO) continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (!name || strncmp(name, NVINFO_PREFIX, strlen(NVINFO_PREFIX))) continue;
        name += strlen(NVINFO_PREFIX);
        if (*name && add_kernel(t, &cap, name, scn)) ok = 0;
    }
    if (e) elf_end(e);
    free(copy);
    if (!ok) {
        aoe_cu_nvinfo_free(t);
        return NULL;
    }
    return t;
}

int aoe_cu_nvinfo_find(const aoe_cu_nvinfo *t, const char *kernel, aoe_cu_param *out, int max)
{
    if (!t || !kernel) return -1;
    for (int i = 0; i < t->nkernels; i++) {
        const nv_kernel *k = &t->kernels[i];
        if (strcmp(k->name, kernel)) continue;
        if (!out) return k->nparams;     /* the number only */
        if (k->nparams > max) return -1; /* a partial layout is no layout */
        if (k->nparams) memcpy(out, k->params, (size_t)k->nparams * sizeof *out);
        return k->nparams;
    }
    return -1;
}

void aoe_cu_nvinfo_free(aoe_cu_nvinfo *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkernels; i++) {
        free(t->kernels[i].name);
        free(t->kernels[i].params);
    }
    free(t->kernels);
    free(t);
}
