/* hooks/cuda_image.c: the length and hash of an image the driver receives
 * by pointer only (cubin ELF, fatbin, nvcc's fatbin wrapper, PTX text),
 * read from its headers and never past them. */
#include "hooks/cuda_image.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

Test(cuda_image, text_is_measured_to_its_nul)
{
    static const char img[] = "AOEFAKECUBIN 1\nkernel k\n";
    const void *start;
    size_t len;
    cr_assert_eq(aoe_cu_image_measure(img, &start, &len), AOE_CU_IMAGE_TEXT);
    cr_assert_eq(len, strlen(img));
    cr_assert_eq(start, img);
    /* a one-byte image: the magic checks stop at its NUL (ASan build) */
    char *empty = calloc(1, 1);
    cr_assert_eq(aoe_cu_image_measure(empty, &start, &len), AOE_CU_IMAGE_TEXT);
    cr_assert_eq(len, 0);
    free(empty);
    cr_assert_eq(aoe_cu_image_measure(NULL, &start, &len), AOE_CU_IMAGE_UNKNOWN);
}

Test(cuda_image, elf_ends_at_its_last_header_table)
{
    unsigned char *elf = calloc(1, 448);
    memcpy(elf, "\177ELF\2\1", 6);
    uint64_t shoff = 0x100, phoff = 0x40;
    uint16_t shentsize = 64, shnum = 3, phentsize = 56, phnum = 2;
    memcpy(elf + 0x20, &phoff, 8);
    memcpy(elf + 0x28, &shoff, 8);
    memcpy(elf + 0x36, &phentsize, 2);
    memcpy(elf + 0x38, &phnum, 2);
    memcpy(elf + 0x3A, &shentsize, 2);
    memcpy(elf + 0x3C, &shnum, 2);
    const void *start;
    size_t len;
    cr_assert_eq(aoe_cu_image_measure(elf, &start, &len), AOE_CU_IMAGE_ELF);
    cr_assert_eq(len, 0x100 + 3 * 64);
    elf[4] = 1; /* a 32-bit ELF is not a cubin */
    cr_assert_eq(aoe_cu_image_measure(elf, &start, &len), AOE_CU_IMAGE_UNKNOWN);
    cr_assert_eq(len, 0);
    free(elf);
}

Test(cuda_image, fatbin_and_its_wrapper)
{
    unsigned char *fat = calloc(1, 16 + 100);
    uint32_t magic = 0xBA55ED50u;
    uint16_t version = 1, hsize = 16;
    uint64_t body = 100;
    memcpy(fat, &magic, 4);
    memcpy(fat + 4, &version, 2);
    memcpy(fat + 6, &hsize, 2);
    memcpy(fat + 8, &body, 8);
    const void *start;
    size_t len;
    cr_assert_eq(aoe_cu_image_measure(fat, &start, &len), AOE_CU_IMAGE_FATBIN);
    cr_assert_eq(len, 116);
    struct {
        uint32_t magic, version;
        const void *data, *filename;
    } wrapper = {0x466243B1u, 1, fat, NULL};
    cr_assert_eq(aoe_cu_image_measure(&wrapper, &start, &len), AOE_CU_IMAGE_FATBIN);
    cr_assert_eq(start, fat);
    cr_assert_eq(len, 116);
    free(fat);
}

Test(cuda_image, hash_is_fnv1a_64)
{
    cr_assert_eq(aoe_cu_image_hash("", 0), 0xcbf29ce484222325ull);
    cr_assert_eq(aoe_cu_image_hash("a", 1), 0xaf63dc4c8601ec8cull);
}
