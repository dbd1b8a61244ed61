/* provenance: facts about where a sweep ran: the git commit of the script's
 * repository, the host name, the command line. */
#ifndef RUNNER_PROVENANCE_H
#define RUNNER_PROVENANCE_H

#include <stddef.h>

/* HEAD commit (hex) of the git work tree holding path, with "-dirty"
 * appended when the script itself has uncommitted changes; NULL when there
 * is no repository or git is missing. malloc'd; caller frees. */
char *provenance_git_commit(const char *script_path);
/* Every commit of the git repository holding path, oldest first in git's
 * topological order (`git rev-list --topo-order --reverse --all`), one
 * full hex id a line; NULL when there is no repository or git is missing.
 * malloc'd; caller frees. */
char *provenance_git_order(const char *script_path);
/* The host name into buf (never fails: "unknown"). */
void provenance_host(char *buf, size_t size);
/* argv joined with spaces, shell-quoted where needed. malloc'd. */
char *provenance_command_line(int argc, char **argv);

#endif
