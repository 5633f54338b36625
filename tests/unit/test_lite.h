/* A stand-in for the part of Criterion that the launch core's unit tests
 * use (tests/unit/test_launch_*.c), for the ThreadSanitizer build, where
 * Criterion's own runner crashes: every Test runs in this process, in
 * order of definition; a failed assertion says where and exits 1. */
#ifndef AOE_TEST_LITE_H
#define AOE_TEST_LITE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lite_test {
    const char *suite, *name;
    void (*fn)(void);
    struct lite_test *next;
} lite_test;

static lite_test *lite_head, **lite_tail = &lite_head;

/* Test(suite, name, options...): the options (.timeout) are ignored. */
#define Test(suite, name, ...)                                                                     \
    static void suite##_##name(void);                                                              \
    static lite_test lite_##suite##_##name = {#suite, #name, suite##_##name, NULL};                \
    __attribute__((constructor)) static void lite_add_##suite##_##name(void)                       \
    {                                                                                              \
        *lite_tail = &lite_##suite##_##name;                                                       \
        lite_tail = &lite_##suite##_##name.next;                                                   \
    }                                                                                              \
    static void suite##_##name(void)

static __attribute__((format(printf, 3, 4), noreturn)) void lite_fail(const char *file, int line,
                                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: assertion failed:", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define cr_assert(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) lite_fail(__FILE__, __LINE__, " " __VA_ARGS__);                               \
    } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_log_info(...) (printf(__VA_ARGS__), putchar('\n'))

int main(void)
{
    int n = 0;
    for (lite_test *t = lite_head; t; t = t->next, n++) {
        t->fn();
        printf("ok %s::%s\n", t->suite, t->name);
    }
    printf("%d tests passed\n", n);
    return 0;
}

#endif
