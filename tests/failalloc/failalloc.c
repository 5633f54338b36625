/* An allocator that fails on purpose, for tests: preloaded before the shim,
 * it makes malloc, calloc, realloc, strdup and strndup return NULL (errno
 * ENOMEM) when they are called from the code of chosen objects (the shim and
 * the libraries it calls), and passes every other call through. The program,
 * its runtime and the C library keep their memory, so what a test sees is how
 * the shim copes with running out: it must never crash the program.
 *
 *   FAILALLOC_OBJECTS  colon-separated parts of the objects' paths, e.g.
 *                      "libaoe_hook.so:libcjson.so", "@main" for the program
 *                      itself (required)
 *   FAILALLOC_EVERY    fail every Nth call from those objects (default 1)
 *   FAILALLOC_AFTER    ... only after the first N such calls (default 0)
 *   FAILALLOC_EXE      only in a process whose executable has this name
 *   FAILALLOC_REPORT   a directory: at exit each process writes
 *                      failalloc.<pid> there, "calls N failed M"
 *
 * Like the other test doubles' variables (FAKECUDA_*, FAKECUBLAS_*), these
 * are not AOE's configuration. The calls are counted across threads, so
 * which call fails depends on the threads' order; the count of failures is
 * what a test asserts on. */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

#define EXPORT __attribute__((visibility("default"))) /* the build hides symbols */

#define MAX_RANGES 32

static struct {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int n_ranges;
static unsigned long every = 1, after;
static atomic_ulong calls, failed;
static int active;
static char report[512];

/* The executable segments of every loaded object whose path contains one of
 * the colon-separated parts in `want`. */
static int add_ranges(struct dl_phdr_info *info, size_t size, void *want)
{
    (void)size;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    static int visited;
    if (!visited++) name = "@main"; /* dl_iterate_phdr visits the program first */
    int match = 0;
    for (const char *p = want; *p && !match;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char part[256];
        if (len && len < sizeof part) {
            memcpy(part, p, len);
            part[len] = '\0';
            match = strstr(name, part) != NULL;
        }
        p += len + (end != NULL);
    }
    for (int i = 0; match && i < info->dlpi_phnum && n_ranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        ranges[n_ranges].lo = info->dlpi_addr + ph->p_vaddr;
        ranges[n_ranges].hi = ranges[n_ranges].lo + ph->p_memsz;
        n_ranges++;
    }
    return 0;
}

static unsigned long number(const char *name, unsigned long def)
{
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return *end ? def : n;
}

__attribute__((constructor)) static void failalloc_init(void)
{
    const char *want = getenv("FAILALLOC_OBJECTS");
    const char *exe = getenv("FAILALLOC_EXE");
    if (!want || !*want) return;
    if (exe && *exe) {
        char path[4096];
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0) return;
        path[n] = '\0';
        const char *base = strrchr(path, '/');
        if (strcmp(base ? base + 1 : path, exe)) return;
    }
    every = number("FAILALLOC_EVERY", 1);
    after = number("FAILALLOC_AFTER", 0);
    if (!every) return;
    const char *r = getenv("FAILALLOC_REPORT");
    if (r) snprintf(report, sizeof report, "%s", r);
    dl_iterate_phdr(add_ranges, (void *)want);
    active = n_ranges > 0;
}

__attribute__((destructor)) static void failalloc_report(void)
{
    if (!active || !report[0]) return;
    char path[600], line[96];
    snprintf(path, sizeof path, "%s/failalloc.%ld", report, (long)getpid());
    int n = snprintf(line, sizeof line, "calls %lu failed %lu\n", atomic_load(&calls),
                     atomic_load(&failed));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) < 0) (void)0;
    close(fd);
}

/* Whether the allocation asked for from `caller` fails. */
static int fail_now(const void *caller)
{
    if (!active) return 0;
    uintptr_t a = (uintptr_t)caller;
    int ours = 0;
    for (int i = 0; i < n_ranges && !ours; i++) ours = a >= ranges[i].lo && a < ranges[i].hi;
    if (!ours) return 0;
    unsigned long k = atomic_fetch_add(&calls, 1) + 1;
    if (k <= after || (k - after) % every) return 0;
    atomic_fetch_add(&failed, 1);
    errno = ENOMEM;
    return 1;
}

EXPORT void *malloc(size_t n)
{
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

EXPORT char *strdup(const char *s)
{
    if (fail_now(__builtin_return_address(0))) return NULL;
    size_t n = strlen(s) + 1;
    char *d = __libc_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

EXPORT char *strndup(const char *s, size_t max)
{
    if (fail_now(__builtin_return_address(0))) return NULL;
    size_t n = strnlen(s, max);
    char *d = __libc_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}
