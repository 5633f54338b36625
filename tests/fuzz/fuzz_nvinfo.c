/* libFuzzer harness: the .nv.info reader (hooks/cuda_nvinfo.c) on arbitrary
 * bytes. Input starting with the ELF magic is read as an image as it is
 * (libelf's side: headers, section table, names); anything else becomes the
 * records of a `.nv.info.k` section inside a well-formed cubin (the record
 * walker's side). Whatever layout it returns must be in ordinal order,
 * disjoint and fit 16-bit offsets; the input is never written.
 * fuzz-sources: hooks/cuda_nvinfo.c
 * fuzz-libs: -lelf */
#include "hooks/cuda_nvinfo.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char g_shstr[] = "\0.shstrtab\0.nv.info.k";

/* A cubin holding recs as section .nv.info.k. */
static unsigned char *wrap(const uint8_t *recs, size_t n, size_t *len)
{
    size_t str_off = sizeof(Elf64_Ehdr), k_off = (str_off + sizeof g_shstr + 3) & ~(size_t)3;
    size_t sh_off = (k_off + n + 7) & ~(size_t)7;
    *len = sh_off + 3 * sizeof(Elf64_Shdr);
    unsigned char *b = calloc(1, *len);
    if (!b) return NULL;
    Elf64_Ehdr eh = {0};
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = 190; /* EM_CUDA */
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof eh;
    eh.e_shoff = sh_off;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 3;
    eh.e_shstrndx = 1;
    memcpy(b, &eh, sizeof eh);
    memcpy(b + str_off, g_shstr, sizeof g_shstr);
    if (n) memcpy(b + k_off, recs, n);
    Elf64_Shdr sh[3] = {{0}};
    sh[1] = (Elf64_Shdr){.sh_name = 1,
                         .sh_type = SHT_STRTAB,
                         .sh_offset = str_off,
                         .sh_size = sizeof g_shstr,
                         .sh_addralign = 1};
    sh[2] = (Elf64_Shdr){
        .sh_name = 11, .sh_type = 0x70000000, .sh_offset = k_off, .sh_size = n, .sh_addralign = 4};
    memcpy(b + sh_off, sh, sizeof sh);
    return b;
}

static void check(const aoe_cu_nvinfo *t, const char *kernel)
{
    static aoe_cu_param p[4096];
    int n = aoe_cu_nvinfo_find(t, kernel, p, 4096);
    if (n < -1 || n > 4096) abort();
    if (n >= 0 && aoe_cu_nvinfo_find(t, kernel, NULL, 0) != n) abort();
    uint64_t end = 0;
    for (int i = 0; i < n; i++) {
        if (!p[i].size || p[i].offset < end || p[i].offset > 0xffff) abort();
        end = (uint64_t)p[i].offset + p[i].size;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *img;
    size_t len;
    if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG)) {
        len = size;
        img = malloc(len ? len : 1);
        if (!img) return 0;
        memcpy(img, data, len);
    } else if (!(img = wrap(data, size, &len))) {
        return 0;
    }
    unsigned char *before = malloc(len ? len : 1);
    if (!before) abort();
    memcpy(before, img, len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    if (memcmp(before, img, len)) abort(); /* the caller's image is never written */
    check(t, "k");
    check(t, "k_ints");
    check(t, "_Z6k_ptrsPfPKfS1_i");
    check(t, "");
    aoe_cu_nvinfo_free(t);
    free(before);
    free(img);
    return 0;
}
