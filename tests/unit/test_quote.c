/* quote and outfile (core/base): text quoted for a shell word, an #SBATCH
 * value and a terminal; output files made new and renamed over their
 * names, never through a link, non-regular targets refused. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/quote.h"
#include "base/util.h"
#include "check.h"

static char *shell(const char *text)
{
    strbuf b = { 0 };
    quote_shell_word(&b, text);
    return b.data;
}

static char *sbatch(const char *text, int filename, int *rc)
{
    strbuf b = { 0 };
    strbuf_str(&b, "");
    *rc = quote_sbatch_value(&b, text, filename);
    return b.data;
}

static void test_quoters(void)
{
    char *got = shell("it's $(x)\n`y`");
    CHECK_STR_EQ(got, "'it'\\''s $(x)\n`y`'");
    free(got);
    int rc;
    got = sbatch("grid-1.2:00/x", 0, &rc); /* plain: as it is */
    CHECK_INT_EQ(rc, 0);
    CHECK_STR_EQ(got, "grid-1.2:00/x");
    free(got);
    got = sbatch("my \"grid\" 5% \\", 0, &rc);
    CHECK_STR_EQ(got, "\"my \\\"grid\\\" 5% \\\\\"");
    free(got);
    got = sbatch("/jobs 50%a", 1, &rc); /* a path: Slurm's % kept literal */
    CHECK_STR_EQ(got, "\"/jobs 50%%a\"");
    free(got);
    got = sbatch("a\nb", 0, &rc);
    CHECK_INT_EQ(rc, -1);
    CHECK_STR_EQ(got, "");
    free(got);
    got = sbatch("a\\b", 1, &rc);
    CHECK_INT_EQ(rc, -1);
    free(got);
    got = quote_terminal("na\033[31mme\n\xff caf\xc3\xa9");
    CHECK_STR_EQ(got, "na\\x1b[31mme\\n\\xff caf\xc3\xa9");
    free(got);
}

static void test_outfile(void)
{
    char dir[] = "/tmp/test_quote.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], victim[256], link[256];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    char *err = NULL;
    CHECK_INT_EQ(outfile_write_path(path, "new\n", 4, 0666, &err), 0);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT_EQ(util_read_file(path, &text, &len), 0);
    CHECK_STR_EQ(text, "new\n");
    free(text);
    /* a symbolic link at the name: refused, its target untouched */
    CHECK_INT_EQ(util_replace_file(victim, "secret", 6, &err), 0);
    CHECK_INT_EQ(symlink(victim, link), 0);
    CHECK_INT_EQ(outfile_write_path(link, "x", 1, 0666, &err), -1);
    char expected[600];
    snprintf(expected, sizeof expected,
             "%s: exists and is a symbolic link; runner replaces only regular files (remove it "
             "or choose another name)",
             link);
    CHECK_STR_EQ(err, expected);
    free(err);
    err = NULL;
    CHECK_INT_EQ(util_read_file(victim, &text, &len), 0);
    CHECK_STR_EQ(text, "secret");
    free(text);
    /* a discarded file leaves nothing behind: only the three names remain */
    int dirfd = outfile_open_dir(dir, 0, &err);
    CHECK(dirfd >= 0);
    outfile *f = outfile_begin(dirfd, "gone.txt", "gone.txt", 0666, &err);
    CHECK(f != NULL);
    outfile_discard(f);
    char command[400];
    snprintf(command, sizeof command, "test \"$(ls -A %s | wc -l)\" = 3", dir);
    CHECK_INT_EQ(system(command), 0);
    /* a directory given through a link: refused; with / it is followed */
    CHECK_INT_EQ(outfile_open_dir(link, 0, &err), -1);
    free(err);
    err = NULL;
    close(dirfd);
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK_INT_EQ(system(command), 0);
}

int main(void)
{
    test_quoters();
    test_outfile();
    return check_done("test_quote");
}
