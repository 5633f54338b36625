/* Measuring an image the driver is handed by pointer only (hooks/cuda_image.h):
 * from its headers, never past them. */
#include "hooks/cuda_image.h"

#include <stdint.h>
#include <string.h>

#define FATBIN_MAGIC 0xBA55ED50u         /* fatbin data */
#define FATBIN_WRAPPER_MAGIC 0x466243B1u /* __fatBinC_Wrapper_t, nvcc's registration record */
#define MAX_IMAGE ((size_t)1 << 31)      /* a larger length is a bad header */

/* Whether b begins with the little-endian 32-bit magic m: byte by byte, so
 * a short text image (its NUL differs from every magic byte) is never read
 * past its end. */
static int magic(const unsigned char *b, uint32_t m)
{
    for (int i = 0; i < 4; i++)
        if (b[i] != (unsigned char)(m >> (8 * i))) return 0;
    return 1;
}

static uint64_t u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A 64-bit little-endian ELF: the furthest of its section and program header tables. */
static size_t elf_len(const unsigned char *b)
{
    if (b[4] != 2 || b[5] != 1) return 0;
    uint64_t phoff = u64(b + 0x20), shoff = u64(b + 0x28);
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phentsize, b + 0x36, 2);
    memcpy(&phnum, b + 0x38, 2);
    memcpy(&shentsize, b + 0x3A, 2);
    memcpy(&shnum, b + 0x3C, 2);
    uint64_t end = shoff + (uint64_t)shentsize * shnum;
    uint64_t pend = phoff + (uint64_t)phentsize * phnum;
    if (pend > end) end = pend;
    return end < MAX_IMAGE ? (size_t)end : 0;
}

int aoe_cu_image_measure(const void *image, const void **start, size_t *len)
{
    *start = image;
    *len = 0;
    if (!image) return AOE_CU_IMAGE_UNKNOWN;
    const unsigned char *b = image;
    if (magic(b, FATBIN_WRAPPER_MAGIC)) { /* {magic, version, data, filename} */
        const void *data;
        memcpy(&data, b + 8, sizeof data);
        if (!data || !magic(data, FATBIN_MAGIC)) return AOE_CU_IMAGE_UNKNOWN;
        b = data;
        *start = data;
    }
    if (magic(b, FATBIN_MAGIC)) { /* {magic, u16 version, u16 header size, u64 body size} */
        uint16_t hsize;
        memcpy(&hsize, b + 6, 2);
        uint64_t n = hsize + u64(b + 8);
        if (n < MAX_IMAGE) *len = (size_t)n;
        return *len ? AOE_CU_IMAGE_FATBIN : AOE_CU_IMAGE_UNKNOWN;
    }
    if (magic(b, 0x464C457Fu)) /* "\177ELF" */ {
        *len = elf_len(b);
        return *len ? AOE_CU_IMAGE_ELF : AOE_CU_IMAGE_UNKNOWN;
    }
    /* PTX (and the test doubles' images) are NUL-terminated text */
    size_t n = strnlen((const char *)b, MAX_IMAGE);
    if (n == MAX_IMAGE) return AOE_CU_IMAGE_UNKNOWN;
    *len = n;
    return AOE_CU_IMAGE_TEXT;
}
