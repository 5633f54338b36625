/* `aoe run [--offline] [--repeat] [--bank PATH] [--json] -- CMD ARGS`: runs a
 * program with the shim preloaded, then summarises the result files it wrote.
 * Exits with the program's status (128+N when a signal N ended it). */
#include "core/not_tuned_reasons.h"
#include "tuner/cli.h"

#include "core/layout.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: aoe run [--offline] [--repeat] [--bank PATH] [--json] -- CMD [ARGS...]\n"
               "\n"
               "Runs CMD with libaoe_hook.so preloaded (appended to an existing LD_PRELOAD):\n"
               "kernels the bank knows launch with their tuned policy, the others are\n"
               "captured and tuned in the background. After CMD exits, prints a summary of\n"
               "the result files (aoe_result_opat_*.json) it wrote, on stderr, and exits\n"
               "with CMD's exit status (127: CMD not found, 126: not runnable, as a\n"
               "shell's). A signal sent to aoe run (HUP, INT, QUIT, TERM, USR1, USR2)\n"
               "goes on to CMD.\n"
               "\n"
               "  --offline    only capture tuning jobs (AOE_TUNE_MODE=offline); tune them\n"
               "               later with `aoe tune --spool DIR`\n"
               "  --repeat     tune again even operators the bank knows (REPEAT_TUNE=True);\n"
               "               an entry is replaced only by a better result\n"
               "  --bank PATH  knowledge bank directory (TUNE_BANK_PATH)\n"
               "  --json       print the result files as one JSON array on stdout\n");
}

static int hook_path(char *out, size_t len)
{
    char exe[PATH_MAX];
    if (aoe_layout_exe_dir(exe, sizeof exe) ||
        aoe_layout_find(exe, AOE_FROM_BIN, AOE_LAYOUT_SHIM, out, len))
        return -1;
    char *real = realpath(out, NULL);
    if (!real) return -1;
    snprintf(out, len, "%s", real);
    free(real);
    return 0;
}

static int set_preload(const char *hook)
{
    const char *old = getenv("LD_PRELOAD");
    if (!old || !*old) return setenv("LD_PRELOAD", hook, 1);
    size_t len = strlen(old) + strlen(hook) + 2;
    char *v = malloc(len);
    if (!v) return -1;
    snprintf(v, len, "%s:%s", old, hook);
    int rc = setenv("LD_PRELOAD", v, 1);
    free(v);
    return rc;
}

typedef struct {
    cJSON *files;
    cJSON *untuned; /* reason -> [operators, launches], summed over the files */
    int ops, hit, add, update, reserved, unsatisfied;
    double base, tuned;
} run_summary;

static int num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
}

static double dnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

/* Adds a file's untuned operators and launches per reason to the sums. */
static void add_untuned(run_summary *s, const cJSON *by_reason)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, by_reason)
    {
        if (!s->untuned && !(s->untuned = cJSON_CreateObject())) return;
        cJSON *sum = cJSON_GetObjectItemCaseSensitive(s->untuned, r->string);
        if (!sum) {
            const double zero[2] = {0, 0};
            sum = cJSON_CreateDoubleArray(zero, 2);
            if (!sum) return;
            cJSON_AddItemToObject(s->untuned, r->string, sum);
        }
        cJSON *o = cJSON_GetArrayItem(sum, 0), *l = cJSON_GetArrayItem(sum, 1);
        cJSON_SetNumberValue(o, o->valuedouble + dnum(r, "operators"));
        cJSON_SetNumberValue(l, l->valuedouble + dnum(r, "launches"));
    }
}

/* A result file can list thousands of operators, never this much. */
#define RESULT_MAX_BYTES (64u << 20)

/* The text of dfd/name when it is the user's own regular file, written since
 * `since`, else NULL. The directory may be one others can write (the
 * program's working directory, /tmp): a planted link is not followed, a FIFO
 * does not block, another user's file is not read; each says so once. */
static char *read_result(int dfd, const char *dir, const char *name, const struct timespec *since)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || st.st_mtim.tv_sec < since->tv_sec ||
        (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec < since->tv_nsec))
        return NULL; /* gone, or an earlier run's file */
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    const char *why = NULL;
    if (fd < 0)
        why = errno == ELOOP ? "a symbolic link" : strerror(errno);
    else if (fstat(fd, &st))
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_uid != geteuid())
        why = "another user's file";
    else if ((unsigned long long)st.st_size > RESULT_MAX_BYTES)
        why = "larger than 64 MiB";
    char *text = why ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n > 0)
            got += (size_t)n;
        else if (n == 0 || errno != EINTR)
            break;
    }
    if (text) text[got] = '\0';
    if (!why && !text) why = strerror(ENOMEM);
    if (fd >= 0) close(fd);
    if (why) fprintf(stderr, "aoe run: result file %s/%s ignored: %s\n", dir, name, why);
    return text;
}

/* Reads every result file in dir written since `since`. */
static void collect(const char *dir, const struct timespec *since, run_summary *s)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "aoe_result_opat_", 16) || n < 5 ||
            strcmp(e->d_name + n - 5, ".json"))
            continue;
        char *text = read_result(dfd, dir, e->d_name, since);
        if (!text) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cJSON *root = cJSON_Parse(text);
        free(text);
        const cJSON *opat = root ? cJSON_GetObjectItemCaseSensitive(root, "OPAT") : NULL;
        if (!opat) {
            cJSON_Delete(root);
            continue;
        }
        const cJSON *rs = cJSON_GetObjectItemCaseSensitive(opat, "repo_summary");
        s->ops += num(rs, "total");
        s->hit += num(rs, "hit");
        s->add += num(rs, "add");
        s->update += num(rs, "update");
        s->reserved += num(rs, "reserved");
        s->unsatisfied += num(rs, "unsatisfied");
        add_untuned(s, cJSON_GetObjectItemCaseSensitive(rs, "untuned_by_reason"));
        s->base += dnum(opat, "baseline_total_us");
        s->tuned += dnum(opat, "tuned_total_us");
        cJSON_AddStringToObject(root, "path", path);
        cJSON_AddItemToArray(s->files, root);
    }
    closedir(d);
}

/* The human text for a reason's JSON name (the reasons' one list). */
static const char *reason_text(const char *json)
{
#define AOE_NT_ROW(code, j, text) {j, text},
    static const struct {
        const char *json, *text;
    } rows[] = {AOE_NOT_TUNED_REASONS(AOE_NT_ROW)};
#undef AOE_NT_ROW
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(rows[i].json, json)) return rows[i].text;
    return json; /* a newer shim's reason */
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line per reason, in the order of the first file that names it:
 * "not tuned (REASON): a, b, c" with the kernel names sorted, de-duplicated,
 * at most MAX_NAMES of them. */
#define MAX_NAMES 10
static void print_not_tuned(const run_summary *s, FILE *out)
{
    cJSON *reasons = cJSON_CreateObject(); /* reason text -> array of names */
    if (!reasons) return;
    const cJSON *file, *e;
    cJSON_ArrayForEach(file, s->files)
    {
        const cJSON *opat = cJSON_GetObjectItemCaseSensitive(file, "OPAT");
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(opat, "not_tuned"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "op_name");
            const cJSON *why = cJSON_GetObjectItemCaseSensitive(e, "reason");
            if (!cJSON_IsString(name) || !cJSON_IsString(why)) continue;
            if (!strcmp(why->valuestring, "graph_replay")) continue; /* print_replays */
            cJSON *names = cJSON_GetObjectItemCaseSensitive(reasons, why->valuestring);
            if (!names) names = cJSON_AddArrayToObject(reasons, why->valuestring);
            if (names) cJSON_AddItemToArray(names, cJSON_CreateString(name->valuestring));
        }
    }
    const cJSON *names;
    cJSON_ArrayForEach(names, reasons)
    {
        int n = cJSON_GetArraySize(names), k = 0;
        char **v = calloc((size_t)n + 1, sizeof *v);
        if (!v) break;
        cJSON_ArrayForEach(e, names) v[k++] = e->valuestring;
        qsort(v, (size_t)n, sizeof *v, cmp_str);
        fprintf(out, "not tuned (%s): ", reason_text(names->string));
        int shown = 0, distinct = 0;
        for (int i = 0; i < n; i++) {
            if (i && !strcmp(v[i], v[i - 1])) continue;
            if (distinct++ < MAX_NAMES) fprintf(out, "%s%s", shown++ ? ", " : "", v[i]);
        }
        if (distinct > MAX_NAMES) fprintf(out, " and %d more", distinct - MAX_NAMES);
        fputc('\n', out);
        free(v);
    }
    cJSON_Delete(reasons);
}

/* CUDA graph replays: not a kernel but calls that run captured kernels
 * again, so a count rather than a name list: "CUDA graph replays  N
 * launches  graph replay (...)  first from SITE", one line per result file. */
static void print_replays(const run_summary *s, FILE *out)
{
    const cJSON *file, *e;
    cJSON_ArrayForEach(file, s->files)
    {
        const cJSON *opat = cJSON_GetObjectItemCaseSensitive(file, "OPAT");
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(opat, "not_tuned"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "op_name");
            const cJSON *why = cJSON_GetObjectItemCaseSensitive(e, "reason");
            const cJSON *site = cJSON_GetObjectItemCaseSensitive(e, "detail");
            if (!cJSON_IsString(name) || !cJSON_IsString(why) ||
                strcmp(why->valuestring, "graph_replay"))
                continue;
            fprintf(out, "%s  %.0f launches  %s", name->valuestring, dnum(e, "launches"),
                    reason_text(why->valuestring));
            if (cJSON_IsString(site) && site->valuestring[0])
                fprintf(out, "  first from %s", site->valuestring);
            fputc('\n', out);
        }
    }
}

static void print_summary(const run_summary *s, FILE *out)
{
    int nfiles = cJSON_GetArraySize(s->files);
    if (!nfiles) {
        fprintf(out, "aoe run: no result file: the shim saw no kernel launch or library call it "
                     "handles (OpenCL, CUDA, cuBLAS)\n");
        return;
    }
    fprintf(out, "aoe run: %d operator(s): %d hit, %d added, %d updated, %d reserved, %d untuned",
            s->ops, s->hit, s->add, s->update, s->reserved, s->unsatisfied);
    /* each untuned operator with its reason: " [N reason (L launches); ...]" */
    const cJSON *u;
    int k = 0;
    cJSON_ArrayForEach(u, s->untuned)
    {
        fprintf(out, "%s%.0f %s (%.0f launches)", k++ ? "; " : " [",
                cJSON_GetArrayItem(u, 0)->valuedouble, reason_text(u->string),
                cJSON_GetArrayItem(u, 1)->valuedouble);
    }
    fprintf(out, "%s\n", k ? "]" : "");
    int rows = 0;
    const cJSON *file;
    cJSON_ArrayForEach(file, s->files)
    {
        const cJSON *opat = cJSON_GetObjectItemCaseSensitive(file, "OPAT");
        const cJSON *mods = cJSON_GetObjectItemCaseSensitive(opat, "modified_operators");
        const cJSON *m;
        cJSON_ArrayForEach(m, mods)
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "op_name");
            const cJSON *site = cJSON_GetObjectItemCaseSensitive(m, "call_site");
            if (!rows++)
                fprintf(out, "%-28s %10s %12s %12s  %s\n", "OPERATOR", "LAUNCHES", "BEFORE_US",
                        "AFTER_US", "CALL SITE");
            fprintf(out, "%-28.28s %10d %12.1f %12.1f  %s\n",
                    cJSON_IsString(name) ? name->valuestring : "?", num(m, "launches"),
                    dnum(m, "before_us"), dnum(m, "after_us"),
                    cJSON_IsString(site) ? site->valuestring : "?");
        }
    }
    /* Only tuned operators have before/after times worth a line. */
    if (rows) {
        double imp = s->base > 0 ? (s->base - s->tuned) / s->base * 100.0 : 0.0;
        fprintf(out, "kernel time of tuned operators: %.1f us -> %.1f us (%.1f%% less)\n", s->base,
                s->tuned, imp);
    }
    print_not_tuned(s, out);
    print_replays(s, out);
    cJSON_ArrayForEach(file, s->files)
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(file, "path");
        if (cJSON_IsString(p)) fprintf(out, "result file: %s\n", p->valuestring);
    }
}

/* A signal sent to aoe run itself (kill PID, a supervisor or a container
 * runtime stopping it) goes on to the program, whose exit then ends aoe run
 * with its status: the program is never left running alone. One the
 * terminal or the kernel sends (Ctrl-C, a hangup) reaches the program itself,
 * in the same process group, so it is not sent twice. */
static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
#define N_FORWARDED ((int)(sizeof forwarded / sizeof forwarded[0]))
static volatile sig_atomic_t g_child;

static void forward(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    int saved = errno;
    if (g_child > 0 && si && si->si_code <= 0) kill((pid_t)g_child, sig); /* SI_USER, SI_QUEUE */
    errno = saved;
}

int aoe_cmd_run(int argc, char **argv)
{
    int offline = 0, repeat = 0, json = 0, i = 1;
    const char *bank = NULL;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return AOE_EXIT_OK;
        } else if (!strcmp(argv[i], "--offline")) {
            offline = 1;
        } else if (!strcmp(argv[i], "--repeat")) {
            repeat = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--bank") && i + 1 < argc) {
            bank = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "aoe run: unknown option '%s' (see aoe run --help)\n", argv[i]);
            return AOE_EXIT_USAGE;
        } else {
            break; /* the command, without a "--" */
        }
    }
    if (i >= argc) {
        fprintf(stderr, "aoe run: no command given (see aoe run --help)\n");
        return AOE_EXIT_USAGE;
    }
    char hook[PATH_MAX];
    if (hook_path(hook, sizeof hook)) {
        fprintf(stderr, "aoe run: libaoe_hook.so not found beside this aoe (its lib directory)\n");
        return AOE_EXIT_FAIL;
    }
    if ((bank && setenv("TUNE_BANK_PATH", bank, 1)) ||
        (offline && setenv("AOE_TUNE_MODE", "offline", 1)) ||
        (repeat && setenv("REPEAT_TUNE", "True", 1)) || set_preload(hook)) {
        fprintf(stderr, "aoe run: cannot set the environment: %s\n", strerror(errno));
        return AOE_EXIT_FAIL;
    }
    aoe_config cfg;
    if (aoe_cli_config(&cfg)) return AOE_EXIT_FAIL;
    const char *work = cfg.text[AOE_CFG_WORK_PATH];
    const char *result_dir = (work && *work) ? work : ".";
    /* File times come from the kernel's coarse clock, up to a tick behind
     * the precise one: a program quicker than a tick would write result
     * files that look older than its start (and be left out). */
    struct timespec start;
    clock_gettime(CLOCK_REALTIME_COARSE, &start);
    fflush(NULL);
    /* Set before the fork (exec gives the program the default actions back),
     * so that no signal in between ends aoe run alone. */
    struct sigaction fwd = {0}, old[N_FORWARDED];
    fwd.sa_sigaction = forward;
    fwd.sa_flags = SA_SIGINFO;
    sigemptyset(&fwd.sa_mask);
    for (int k = 0; k < N_FORWARDED; k++) sigaction(forwarded[k], &fwd, &old[k]);
    /* The child reports a failed exec on a close-on-exec pipe: no summary
     * then, and the shell's statuses (127 not found, 126 not runnable). */
    int ep[2] = {-1, -1};
    if (pipe2(ep, O_CLOEXEC)) ep[0] = ep[1] = -1;
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "aoe run: fork: %s\n", strerror(errno));
        for (int k = 0; k < N_FORWARDED; k++) sigaction(forwarded[k], &old[k], NULL);
        if (ep[0] >= 0) close(ep[0]), close(ep[1]);
        return AOE_EXIT_FAIL;
    }
    if (pid == 0) {
        execvp(argv[i], argv + i);
        int e = errno;
        fprintf(stderr, "aoe run: cannot run '%s': %s\n", argv[i], strerror(e));
        if (ep[1] >= 0 && write(ep[1], &e, sizeof e) < 0) e = errno;
        _exit(e == ENOENT ? 127 : 126);
    }
    g_child = pid;
    int exec_err = 0;
    if (ep[0] >= 0) {
        close(ep[1]);
        ssize_t n;
        while ((n = read(ep[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR) {
        }
        if (n != (ssize_t)sizeof exec_err) exec_err = 0; /* end of file: the exec succeeded */
        close(ep[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child = 0;
    for (int k = 0; k < N_FORWARDED; k++) sigaction(forwarded[k], &old[k], NULL);
    if (exec_err) /* the child said why; nothing ran under the shim */
        return WIFEXITED(status) ? WEXITSTATUS(status) : AOE_EXIT_FAIL;
    /* The summary must not turn the program's status into 141 where nobody
     * reads it any more (`aoe run -- prog 2>&1 | head -1`). */
    signal(SIGPIPE, SIG_IGN);
    run_summary s = {0};
    s.files = cJSON_CreateArray();
    collect(result_dir, &start, &s);
    if (json) {
        char *text = cJSON_Print(s.files);
        if (text) printf("%s\n", text);
        free(text);
    } else {
        print_summary(&s, stderr);
    }
    cJSON_Delete(s.files);
    cJSON_Delete(s.untuned);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return AOE_EXIT_FAIL;
}
