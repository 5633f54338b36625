/* Issue 12 (items 4, 15, 16): the safe file-system module on real files:
 * private directories (created 0700; links, other-writable ones refused;
 * ours tightened on request), append-opens and exclusive creates that never
 * follow a planted link, atomic replacement, the bank's "not yet there"
 * signal (EAGAIN) and a log line repeated only when it changed. */
#include "core/fs_safe.h"
#include "core/log_memo.h"
#include "store/bank.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void setup(void)
{
    umask(022);
    strcpy(dir, "/tmp/aoe-test-fs-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(fs_safe, .init = setup, .fini = teardown);

static const char *at(const char *name)
{
    static char p[4][160];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", dir, name);
    return p[i];
}

static unsigned mode_of(const char *p)
{
    struct stat st;
    cr_assert_eq(lstat(p, &st), 0, "%s", p);
    return st.st_mode & 07777;
}

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *p)
{
    static char buf[256];
    FILE *f = fopen(p, "r");
    cr_assert(f, "%s", p);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(fs_safe, private_dir_created_0700_with_parents)
{
    char err[512];
    cr_assert_eq(aoe_fs_private_dir(at("a/b/c"), AOE_FS_CREATE, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mode_of(at("a")), 0700);
    cr_assert_eq(mode_of(at("a/b/c")), 0700);
    cr_assert_eq(aoe_fs_private_dir(at("a/b/c"), 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(aoe_fs_private_dir(at("missing"), 0, err, sizeof err), -1);
    cr_assert_eq(errno, ENOENT);
}

Test(fs_safe, private_dir_refuses_link_and_other_writable)
{
    char err[512];
    cr_assert_eq(mkdir(at("real"), 0700), 0);
    cr_assert_eq(symlink(at("real"), at("link")), 0);
    cr_assert_eq(aoe_fs_private_dir(at("link"), AOE_FS_CREATE, err, sizeof err), -1);
    cr_assert(strstr(err, "symbolic link") && strstr(err, at("link")), "%s", err);
    cr_assert_eq(mkdir(at("open"), 0700), 0);
    cr_assert_eq(chmod(at("open"), 0777), 0);
    cr_assert_eq(aoe_fs_private_dir(at("open"), AOE_FS_TIGHTEN, err, sizeof err), -1);
    cr_assert(strstr(err, "other users can write"), "%s", err);
    cr_assert_eq(mode_of(at("open")), 0777, "a refused directory is left alone");
    /* a parent others may write without the sticky bit: anything below is refused */
    cr_assert_eq(mkdir(at("open/sub"), 0700), 0);
    cr_assert_eq(aoe_fs_private_dir(at("open/sub"), 0, err, sizeof err), -1);
    cr_assert(strstr(err, "parent"), "%s", err);
    cr_assert_eq(chmod(at("open"), 01777), 0); /* like /tmp */
    cr_assert_eq(aoe_fs_private_dir(at("open/sub"), 0, err, sizeof err), 0, "%s", err);
}

/* A link of ours on the way (~/work -> /proj/team/u) leads under a directory
 * others may write without the sticky bit: they could rename u away and put
 * their own directory there after the check. The parents of where the path
 * leads are checked as its written parents are; it used to be accepted. */
Test(fs_safe, private_dir_checks_where_a_link_on_the_way_leads)
{
    char err[512];
    cr_assert_eq(mkdir(at("team"), 0700), 0);
    cr_assert_eq(mkdir(at("team/u"), 0700), 0);
    cr_assert_eq(chmod(at("team"), 0777), 0);
    cr_assert_eq(mkdir(at("mine"), 0700), 0);
    cr_assert_eq(symlink(at("team/u"), at("mine/work")), 0);
    cr_assert_eq(aoe_fs_private_dir(at("mine/work/bank"), AOE_FS_CREATE, err, sizeof err), -1);
    cr_assert(strstr(err, "other users can write its parent") && strstr(err, at("team")), "%s",
              err);
    cr_assert_eq(chmod(at("team"), 01777), 0); /* sticky, like /tmp: accepted */
    cr_assert_eq(aoe_fs_private_dir(at("mine/work/bank"), AOE_FS_CREATE, err, sizeof err), 0, "%s",
                 err);
}

Test(fs_safe, private_dir_tightens_ours)
{
    char err[512];
    cr_assert_eq(mkdir(at("spool"), 0755), 0);
    cr_assert_eq(aoe_fs_private_dir(at("spool"), 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mode_of(at("spool")), 0755, "not without AOE_FS_TIGHTEN");
    cr_assert_eq(aoe_fs_private_dir(at("spool"), AOE_FS_TIGHTEN, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mode_of(at("spool")), 0700);
}

Test(fs_safe, open_append_never_follows_a_link)
{
    char err[512];
    write_text(at("victim"), "victim\n");
    cr_assert_eq(symlink(at("victim"), at("log")), 0);
    cr_assert_eq(aoe_fs_open_append(at("log"), err, sizeof err), -1);
    cr_assert_str_eq(read_text(at("victim")), "victim\n");
    cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
    cr_assert_eq(aoe_fs_open_append(at("fifo"), err, sizeof err), -1, "a FIFO must not hang");
    int fd = aoe_fs_open_append(at("new.log"), err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_eq(write(fd, "x\n", 2), 2);
    close(fd);
    cr_assert_eq(mode_of(at("new.log")), 0600);
    cr_assert_eq(chmod(at("new.log"), 0644), 0); /* left by an older AOE */
    fd = aoe_fs_open_append(at("new.log"), err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    close(fd);
    cr_assert_eq(mode_of(at("new.log")), 0600);
    cr_assert_str_eq(read_text(at("new.log")), "x\n");
}

Test(fs_safe, ensure_and_check_file)
{
    char err[512];
    write_text(at("victim"), "victim\n");
    cr_assert_eq(symlink(at("victim"), at("lock.mdb")), 0);
    cr_assert_eq(aoe_fs_ensure_file(at("lock.mdb"), err, sizeof err), -1);
    cr_assert(strstr(err, "not a regular file"), "%s", err);
    cr_assert_str_eq(read_text(at("victim")), "victim\n");
    cr_assert_eq(aoe_fs_ensure_file(at("data.mdb"), err, sizeof err), 0, "%s", err);
    cr_assert_eq(mode_of(at("data.mdb")), 0600);
    cr_assert_eq(aoe_fs_check_file(at("data.mdb"), (unsigned)geteuid(), err, sizeof err), 1);
    cr_assert_eq(aoe_fs_check_file(at("absent"), (unsigned)geteuid(), err, sizeof err), 0);
    cr_assert_eq(link(at("data.mdb"), at("hard")), 0);
    cr_assert_eq(aoe_fs_check_file(at("data.mdb"), (unsigned)geteuid(), err, sizeof err), -1);
}

Test(fs_safe, write_file_replaces_a_link_never_writes_through_it)
{
    write_text(at("victim"), "victim\n");
    cr_assert_eq(symlink(at("victim"), at("result.json")), 0);
    cr_assert_eq(aoe_fs_write_file(dir, "result.json", "{}\n", 3), 0);
    cr_assert_str_eq(read_text(at("victim")), "victim\n");
    cr_assert_str_eq(read_text(at("result.json")), "{}\n");
    cr_assert_eq(mode_of(at("result.json")), 0600);
}

Test(fs_safe, bank_not_there_yet_is_eagain)
{
    char err[512];
    errno = 0;
    cr_assert_null(aoe_bank_open(at("nobank"), AOE_BANK_READONLY, err, sizeof err));
    cr_assert_eq(errno, EAGAIN, "%s", err);
    cr_assert_eq(mkdir(at("bank"), 0700), 0);
    cr_assert_eq(mkdir(at("bank/spool"), 0700), 0);
    cr_assert_null(aoe_bank_open(at("bank"), AOE_BANK_READONLY, err, sizeof err));
    cr_assert_eq(errno, EAGAIN, "%s", err);
    int fd = open(at("bank/data.mdb"), O_CREAT | O_WRONLY, 0600); /* a tuner creating it */
    close(fd);
    cr_assert_null(aoe_bank_open(at("bank"), AOE_BANK_READONLY, err, sizeof err));
    cr_assert_eq(errno, EAGAIN, "%s", err);
    write_text(at("afile"), "x");
    cr_assert_null(aoe_bank_open(at("afile"), AOE_BANK_READONLY, err, sizeof err));
    cr_assert_neq(errno, EAGAIN, "a real error: %s", err);
    aoe_bank *b = aoe_bank_open(at("bank2"), AOE_BANK_READWRITE, err, sizeof err);
    cr_assert(b, "%s", err);
    aoe_bank_close(b);
    cr_assert_eq(mode_of(at("bank2")), 0700);
    cr_assert_eq(mode_of(at("bank2/lock.mdb")), 0600);
}

Test(fs_safe, log_repeats_only_a_changed_message, .init = cr_redirect_stderr)
{
    aoe_log_memo memo = 0;
    aoe_log_changed(&memo, 1, "bank %s: %s", "x", "corrupt");
    aoe_log_changed(&memo, 1, "bank %s: %s", "x", "corrupt");
    aoe_log_changed(&memo, 1, "bank %s: %s", "x", "truncated");
    fflush(stderr);
    cr_assert_stderr_eq_str("aoe: bank x: corrupt\naoe: bank x: truncated\n");
}
