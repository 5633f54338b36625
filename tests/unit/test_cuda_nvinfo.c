/* hooks/cuda_nvinfo.c: kernel parameter layouts from a cubin's .nv.info
 * sections, on the committed cubin (tests/data/nvinfo: built by the real
 * nvcc from kernels.cu, tested everywhere), on cubins the real nvcc and the
 * real NVRTC make now (where CMake found them; else the test says it is
 * skipped) and on hand-built malformed images. */
#include "hooks/cuda_nvinfo.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AOE_TEST_NVCC
#define AOE_TEST_NVCC ""
#endif
#ifndef AOE_TEST_NVRTC
#define AOE_TEST_NVRTC ""
#endif

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* kernel's layout must be exactly the n (offset, size) pairs of want. */
static void expect(const aoe_cu_nvinfo *t, const char *kernel, int n, const unsigned *want)
{
    aoe_cu_param p[256];
    int got = aoe_cu_nvinfo_find(t, kernel, p, 256);
    cr_assert_eq(got, n, "%s: %d parameters, want %d", kernel, got, n);
    for (int i = 0; i < n; i++) {
        cr_expect_eq(p[i].offset, want[2 * i], "%s parameter %d: offset %u, want %u", kernel, i,
                     p[i].offset, want[2 * i]);
        cr_expect_eq(p[i].size, want[2 * i + 1], "%s parameter %d: size %u, want %u", kernel, i,
                     p[i].size, want[2 * i + 1]);
    }
}

static unsigned char *committed(size_t *len)
{
    return read_all(AOE_SOURCE_DIR "/tests/data/nvinfo/sm90.cubin", len);
}

Test(cuda_nvinfo, committed_cubin_layouts)
{
    size_t len;
    unsigned char *img = committed(&len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t);
    expect(t, "k_ints", 3, (const unsigned[]){0, 4, 4, 4, 8, 4});
    /* a C++ kernel: its lowered (mangled) name, as cuFuncGetName gives it */
    expect(t, "_Z6k_ptrsPfPKfS1_i", 4, (const unsigned[]){0, 8, 8, 8, 16, 8, 24, 4});
    cr_assert_eq(aoe_cu_nvinfo_find(t, "k_ptrs", NULL, 0), -1);
    expect(t, "k_struct", 2, (const unsigned[]){0, 24, 24, 8});
    expect(t, "k_align", 4, (const unsigned[]){0, 1, 8, 8, 16, 2, 24, 8});
    unsigned many[42];
    for (int i = 0; i < 20; i++) many[2 * i] = 4u * (unsigned)i, many[2 * i + 1] = 4;
    many[40] = 80, many[41] = 8;
    expect(t, "k_many", 21, many);
    expect(t, "k_none", 0, NULL);
    expect(t, "_Z6k_tmplIdEvPT_S0_", 2, (const unsigned[]){0, 8, 8, 8});
    cr_assert_eq(aoe_cu_nvinfo_find(t, "no_such_kernel", NULL, 0), -1);
    /* out NULL: the number only; too small an out: no partial layout */
    cr_assert_eq(aoe_cu_nvinfo_find(t, "k_many", NULL, 0), 21);
    aoe_cu_param few[4] = {{99, 99}, {99, 99}, {99, 99}, {99, 99}};
    cr_assert_eq(aoe_cu_nvinfo_find(t, "k_many", few, 4), -1);
    cr_assert_eq(few[0].offset, 99);
    cr_assert_eq(aoe_cu_nvinfo_find(t, "k_ints", few, 3), 3);
    cr_assert_eq(aoe_cu_nvinfo_find(NULL, "k_ints", few, 3), -1);
    aoe_cu_nvinfo_free(t);
    aoe_cu_nvinfo_free(NULL);
    free(img);
}

/* Skips the test, saying why on stderr too (Criterion lists skips only
 * with --verbose): never a silent pass. */
#define skip(why)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "test_cuda_nvinfo: skipped: %s\n", why);                                   \
        cr_skip_test("%s", why);                                                                   \
    } while (0)

/* Runs argv (no shell); its exit status. */
static int run(char *const argv[])
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (!pid) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(cuda_nvinfo, cubins_of_the_real_nvcc)
{
    if (!AOE_TEST_NVCC[0])
        skip("no nvcc found at configure time (AOE_NVCC): cubins of the real nvcc not tested "
             "here (the committed cubin is)");
    char dir[] = "/tmp/aoe_nvinfo_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char src[64], out[64];
    snprintf(src, sizeof src, "%s/k.cu", dir);
    snprintf(out, sizeof out, "%s/k.cubin", dir);
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    /* a char then a 16-byte aligned vector; a struct with alignas; 100 ints
     * and a pointer (written out: no macro tricks in a parameter list) */
    fputs("struct __align__(16) A { char c; };\n"
          "extern \"C\" __global__ void v4(char c, float4 v, int *p) { p[0] = c + (int)v.w; }\n"
          "__global__ void al(A a, long long x, char y, A *o) { o[0] = a; o[0].c += x + y; }\n"
          "extern \"C\" __global__ void hundred(",
          f);
    for (int i = 0; i < 100; i++) fprintf(f, "int a%d, ", i);
    fputs("int *o) { o[0] = a0 + a99; }\n", f);
    fclose(f);
    char *argv[] = {(char *)AOE_TEST_NVCC, "-cubin", "-arch=sm_90", "-o", out, src, NULL};
    cr_assert_eq(run(argv), 0, "%s failed on %s", AOE_TEST_NVCC, src);
    size_t len;
    unsigned char *img = read_all(out, &len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t);
    expect(t, "v4", 3, (const unsigned[]){0, 1, 16, 16, 32, 8});
    expect(t, "_Z2al1AxcPS_", 4, (const unsigned[]){0, 16, 16, 8, 24, 1, 32, 8});
    unsigned hundred[202];
    for (int i = 0; i < 100; i++) hundred[2 * i] = 4u * (unsigned)i, hundred[2 * i + 1] = 4;
    hundred[200] = 400, hundred[201] = 8;
    expect(t, "hundred", 101, hundred);
    aoe_cu_nvinfo_free(t);
    free(img);
    unlink(out);
    unlink(src);
    rmdir(dir);
}

/* The real NVRTC's entry points, by hand (no CUDA header in a test of a
 * header-free reader): status 0 is success. */
typedef int (*nvrtc_create)(void **, const char *, const char *, int, const char *const *,
                            const char *const *);
typedef int (*nvrtc_compile)(void *, int, const char *const *);
typedef int (*nvrtc_size)(void *, size_t *);
typedef int (*nvrtc_get)(void *, char *);
typedef int (*nvrtc_add_name)(void *, const char *);
typedef int (*nvrtc_lowered)(void *, const char *, const char **);
typedef int (*nvrtc_destroy)(void **);

/* What the shim meets: a program's cubin from nvrtcGetCUBIN, kernels named
 * by their lowered names (nvrtcGetLoweredName for a template). */
Test(cuda_nvinfo, cubins_of_the_real_nvrtc)
{
    if (!AOE_TEST_NVRTC[0])
        skip("no libnvrtc found at configure time (AOE_NVRTC_LIBRARY): cubins of the real NVRTC "
             "not tested here (the committed cubin is)");
    void *h = dlopen(AOE_TEST_NVRTC, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "dlopen %s: %s", AOE_TEST_NVRTC, dlerror());
    nvrtc_create create = (nvrtc_create)dlsym(h, "nvrtcCreateProgram");
    nvrtc_compile compile = (nvrtc_compile)dlsym(h, "nvrtcCompileProgram");
    nvrtc_size size = (nvrtc_size)dlsym(h, "nvrtcGetCUBINSize");
    nvrtc_get get = (nvrtc_get)dlsym(h, "nvrtcGetCUBIN");
    nvrtc_add_name add = (nvrtc_add_name)dlsym(h, "nvrtcAddNameExpression");
    nvrtc_lowered lowered = (nvrtc_lowered)dlsym(h, "nvrtcGetLoweredName");
    nvrtc_destroy destroy = (nvrtc_destroy)dlsym(h, "nvrtcDestroyProgram");
    cr_assert(create && compile && size && get && add && lowered && destroy);
    static const char src[] =
        "struct S { int a; double b; char c; };\n"
        "extern \"C\" __global__ void k(char c, double d, S s, float *o) { o[0] = c + d + s.a; }\n"
        "template <typename T> __global__ void t(T *p, T v) { p[0] = v; }\n";
    void *prog;
    cr_assert_eq(create(&prog, src, "nvinfo.cu", 0, NULL, NULL), 0);
    cr_assert_eq(add(prog, "t<float>"), 0);
    const char *opts[] = {"--gpu-architecture=sm_90"};
    cr_assert_eq(compile(prog, 1, opts), 0, "NVRTC could not compile the test's source");
    const char *name = NULL;
    cr_assert_eq(lowered(prog, "t<float>", &name), 0);
    cr_assert_str_eq(name, "_Z1tIfEvPT_S0_");
    size_t len = 0;
    cr_assert_eq(size(prog, &len), 0);
    char *img = malloc(len);
    cr_assert_eq(get(prog, img), 0);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t);
    expect(t, "k", 4, (const unsigned[]){0, 1, 8, 8, 16, 24, 40, 8});
    expect(t, name, 2, (const unsigned[]){0, 8, 8, 4});
    aoe_cu_nvinfo_free(t);
    free(img);
    destroy(&prog);
    /* not dlclosed: NVRTC's own C++ runtime keeps an allocation for the
     * process' life that unloading would orphan (LeakSanitizer) */
}

/* ---- hand-built images: one .nv.info.k section holding recs ---- */

static const char g_shstr[] = "\0.shstrtab\0.nv.info.k\0.nv.info.j";
enum { NAME_SHSTRTAB = 1, NAME_K = 11, NAME_J = 22 };

/* A minimal cubin: header, section names, sections .nv.info.k (recs) and
 * .nv.info.j (recs_j, when not NULL), then the section headers. */
static unsigned char *build2(const unsigned char *recs, size_t n, const unsigned char *recs_j,
                             size_t nj, size_t *len)
{
    size_t str_off = sizeof(Elf64_Ehdr), k_off = (str_off + sizeof g_shstr + 3) & ~(size_t)3;
    size_t j_off = (k_off + n + 3) & ~(size_t)3, sh_off = (j_off + nj + 7) & ~(size_t)7;
    int nsec = recs_j ? 4 : 3;
    *len = sh_off + (size_t)nsec * sizeof(Elf64_Shdr);
    unsigned char *b = calloc(1, *len);
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
    eh.e_shnum = (Elf64_Half)nsec;
    eh.e_shstrndx = 1;
    memcpy(b, &eh, sizeof eh);
    memcpy(b + str_off, g_shstr, sizeof g_shstr);
    if (n) memcpy(b + k_off, recs, n);
    if (nj) memcpy(b + j_off, recs_j, nj);
    Elf64_Shdr sh[4] = {{0}};
    sh[1] = (Elf64_Shdr){.sh_name = NAME_SHSTRTAB,
                         .sh_type = SHT_STRTAB,
                         .sh_offset = str_off,
                         .sh_size = sizeof g_shstr,
                         .sh_addralign = 1};
    sh[2] = (Elf64_Shdr){.sh_name = NAME_K,
                         .sh_type = 0x70000000,
                         .sh_offset = k_off,
                         .sh_size = n,
                         .sh_addralign = 4};
    sh[3] = (Elf64_Shdr){.sh_name = NAME_J,
                         .sh_type = 0x70000000,
                         .sh_offset = j_off,
                         .sh_size = nj,
                         .sh_addralign = 4};
    memcpy(b + sh_off, sh, (size_t)nsec * sizeof(Elf64_Shdr));
    return b;
}

static unsigned char *build(const unsigned char *recs, size_t n, size_t *len)
{
    return build2(recs, n, NULL, 0, len);
}

/* Records of a kernel (int a, float *p): KPARAM_INFO for ordinals 1 and 0
 * (reverse order, as ptxas writes them), PARAM_CBANK total 16, an HVAL and
 * an NVAL record. */
#define KPARAM(ord, off, size)                                                                     \
    0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, (ord), 0, (off), 0, 0x00, 0xf0,                            \
        (unsigned char)(0x01 | ((size) << 2)), (unsigned char)((size) >> 6)
static const unsigned char g_good[] = {
    0x04,
    0x37,
    0x04,
    0x00,
    0x82,
    0,
    0,
    0, /* CUDA_API_VERSION */
    KPARAM(1, 8, 8),
    KPARAM(0, 0, 4),
    0x03,
    0x1b,
    0xff,
    0x00, /* MAXREG_COUNT (HVAL) */
    0x01,
    0x2a,
    0x00,
    0x00, /* an NVAL */
    0x03,
    0x19,
    0x10,
    0x00, /* CBANK_PARAM_SIZE 16 */
    0x04,
    0x0a,
    0x08,
    0x00,
    0x1b,
    0,
    0,
    0,
    0x10,
    0x02,
    0x10,
    0, /* PARAM_CBANK 0x210, 16 */
};

Test(cuda_nvinfo, hand_built_image)
{
    size_t len;
    unsigned char *img = build(g_good, sizeof g_good, &len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t);
    expect(t, "k", 2, (const unsigned[]){0, 4, 8, 8});
    aoe_cu_nvinfo_free(t);
    free(img);
}

/* The image reads, but kernel k has no layout. */
static void k_has_no_layout(const unsigned char *recs, size_t n, const char *what)
{
    size_t len;
    unsigned char *img = build(recs, n, &len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t, "%s: image refused", what);
    cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1, "%s: a layout", what);
    aoe_cu_nvinfo_free(t);
    free(img);
}

Test(cuda_nvinfo, malformed_records_give_no_layout)
{
    unsigned char r[sizeof g_good];
    /* every truncation of the records (the section ends early) */
    for (size_t n = 1; n < sizeof g_good; n++) {
        size_t len;
        unsigned char *img = build(g_good, n, &len);
        aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
        cr_assert_not_null(t);
        aoe_cu_param p[8];
        int got = aoe_cu_nvinfo_find(t, "k", p, 8);
        /* a cut at a record boundary is a shorter section: read as such */
        int want = n == 8 ? 0 : n == 40 || n == 44 || n == 48 || n == 52 ? 2 : -1;
        cr_expect_eq(got, want, "cut at %zu: %d parameters, want %d", n, got, want);
        aoe_cu_nvinfo_free(t);
        free(img);
    }
    memcpy(r, g_good, sizeof r);
    r[10] = 0xff, r[11] = 0x7f; /* an SVAL size past the section */
    k_has_no_layout(r, sizeof r, "SVAL past the end");
    memcpy(r, g_good, sizeof r);
    r[8] = 0x07; /* an unknown format */
    k_has_no_layout(r, sizeof r, "unknown format");
    memcpy(r, g_good, sizeof r);
    r[8] = 0x00; /* format 0 (EIFMT_ERROR) */
    k_has_no_layout(r, sizeof r, "format 0");
    memcpy(r, g_good, sizeof r);
    r[10] = 8; /* a KPARAM_INFO too short (and the rest misread) */
    k_has_no_layout(r, sizeof r, "short KPARAM_INFO");
    memcpy(r, g_good, sizeof r);
    r[8 + 8] = 0; /* two ordinals 0 */
    k_has_no_layout(r, sizeof r, "duplicate ordinal");
    memcpy(r, g_good, sizeof r);
    r[8 + 8] = 5; /* ordinals 5 and 0 of two parameters */
    k_has_no_layout(r, sizeof r, "ordinal out of range");
    memcpy(r, g_good, sizeof r);
    r[8 + 10] = 2; /* parameter 1 at 2: overlaps parameter 0 */
    k_has_no_layout(r, sizeof r, "overlap");
    memcpy(r, g_good, sizeof r);
    r[sizeof r - 4 + 2] = 0x0c; /* PARAM_CBANK total 12, CBANK_PARAM_SIZE 16 */
    k_has_no_layout(r, sizeof r, "totals disagree");
    memcpy(r, g_good, sizeof r);
    r[sizeof r - 4 + 2] = 0x0c, r[sizeof r - 12 - 2] = 0x0c; /* both 12: parameter 1 ends at 16 */
    k_has_no_layout(r, sizeof r, "parameter past the total");
    memcpy(r, g_good, sizeof r);
    r[8 + 14] = 0x01, r[8 + 15] = 0; /* size 0 */
    k_has_no_layout(r, sizeof r, "size 0");
    /* a total with no parameter record */
    static const unsigned char total_only[] = {0x03, 0x19, 0x10, 0x00};
    k_has_no_layout(total_only, sizeof total_only, "total without parameters");
}

Test(cuda_nvinfo, one_bad_kernel_leaves_the_others)
{
    unsigned char bad[sizeof g_good];
    memcpy(bad, g_good, sizeof bad);
    bad[8] = 0x09;
    size_t len;
    unsigned char *img = build2(bad, sizeof bad, g_good, sizeof g_good, &len);
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    cr_assert_not_null(t);
    cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1);
    expect(t, "j", 2, (const unsigned[]){0, 4, 8, 8});
    aoe_cu_nvinfo_free(t);
    free(img);
}

Test(cuda_nvinfo, not_a_cubin_or_broken_elf)
{
    size_t len;
    cr_assert_null(aoe_cu_nvinfo_read(NULL, 100));
    cr_assert_null(aoe_cu_nvinfo_read("AOEFAKECUBIN 1\nkernel k\n", 25));
    unsigned char *img = build(g_good, sizeof g_good, &len);
    for (size_t n = 0; n < sizeof(Elf64_Ehdr); n++) cr_assert_null(aoe_cu_nvinfo_read(img, n));
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    eh->e_machine = EM_X86_64;
    cr_assert_null(aoe_cu_nvinfo_read(img, len), "a host ELF is no cubin");
    eh->e_machine = 190;
    eh->e_ident[EI_DATA] = ELFDATA2MSB;
    cr_assert_null(aoe_cu_nvinfo_read(img, len), "big-endian");
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_CLASS] = ELFCLASS32;
    cr_assert_null(aoe_cu_nvinfo_read(img, len), "32-bit");
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    /* every truncation of the image: read or refused, never past its end (ASan) */
    for (size_t n = sizeof(Elf64_Ehdr); n <= len; n++) {
        unsigned char *cut = malloc(n);
        memcpy(cut, img, n);
        aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(cut, n);
        aoe_cu_param p[8];
        if (t && n < len) cr_expect_eq(aoe_cu_nvinfo_find(t, "k", p, 8), -1);
        aoe_cu_nvinfo_free(t);
        free(cut);
    }
    /* a section whose data lies past the image */
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
    sh[2].sh_offset = len + 4096;
    aoe_cu_nvinfo *t = aoe_cu_nvinfo_read(img, len);
    if (t) cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1);
    aoe_cu_nvinfo_free(t);
    sh[2].sh_offset = 0, sh[2].sh_size = ~0ull;
    t = aoe_cu_nvinfo_read(img, len);
    if (t) cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1);
    aoe_cu_nvinfo_free(t);
    /* section names past the string table */
    sh[2].sh_size = sizeof g_good;
    sh[2].sh_name = 0xfffffff0u;
    t = aoe_cu_nvinfo_read(img, len);
    if (t) cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1);
    aoe_cu_nvinfo_free(t);
    sh[2].sh_name = NAME_K;
    eh->e_shstrndx = 77; /* no such string table */
    t = aoe_cu_nvinfo_read(img, len);
    if (t) cr_expect_eq(aoe_cu_nvinfo_find(t, "k", NULL, 0), -1);
    aoe_cu_nvinfo_free(t);
    free(img);
}

/* The caller's image may be read-only: the reader never writes into it. */
Test(cuda_nvinfo, image_left_unchanged)
{
    size_t len;
    unsigned char *img = committed(&len);
    unsigned char *before = malloc(len);
    memcpy(before, img, len);
    aoe_cu_nvinfo_free(aoe_cu_nvinfo_read(img, len));
    cr_assert_eq(memcmp(before, img, len), 0);
    free(before);
    free(img);
}
