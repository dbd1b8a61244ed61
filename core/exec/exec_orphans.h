/* exec_orphans: the processes a command leaves outside its process group (a
 * daemon started with setsid, its children). runner is a child subreaper,
 * so they become runner's children when their parent exits instead of
 * init's; at the end of each run they are found (by the process group, or
 * by the environment entry every process of the run inherits) and killed
 * and reaped with it: a run never outlives its command. */
#ifndef RUNNER_EXEC_ORPHANS_H
#define RUNNER_EXEC_ORPHANS_H

#include <sys/types.h>

/* Makes runner the child subreaper of what it starts from now on
 * (prctl PR_SET_CHILD_SUBREAPER); once per process, any thread. */
void exec_orphans_adopt(void);

/* Kills and reaps runner's descendants, other than group's leader itself,
 * that are in process group `group` or whose environment holds the entry
 * marker ("RUNNER_POINT_DIR=/tmp/..."; NULL: the group only). Call after
 * the leader exited and before it is reaped, so its pid still names the
 * group. Returns when none is left (or after 5 s of processes that will not
 * die, such as one stuck in the kernel). leader_exited: the leader is known
 * to be a zombie (its children already handed to runner), so it is not read
 * down: the common case costs a few reads of /proc. */
void exec_orphans_kill(pid_t group, const char *marker, int leader_exited);

#endif
