#ifndef WHARF_CPROCESSSPAWN_SHIM_H
#define WHARF_CPROCESSSPAWN_SHIM_H
/* The Linux and GNU calls WharfSystem needs (for Subprocess, Pipe and Poller, and the
 * allocator's arena cap) that Swift's Glibc module cannot reach. Only WharfSystem imports
 * this module. */
#include <malloc.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>

/* Swift's Glibc module is built without _GNU_SOURCE, so these two GNU extensions (in glibc
 * since 2.34 and 2.9) are invisible to Swift. Declared here with glibc's own prototypes. */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
int pipe2(int fds[2], int flags);

/// The child closes every descriptor from `from` on before it runs: it inherits nothing but
/// its standard streams, whatever other threads had open (or half made) at that moment.
static inline int wharf_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// pipe(2) with O_CLOEXEC (and `more` flags, such as O_NONBLOCK) set atomically: there is no
/// window in which a spawn elsewhere inherits either end.
static inline int wharf_pipe_cloexec(int fds[2], int more) { return pipe2(fds, O_CLOEXEC | more); }

/// A descriptor that becomes readable when `pid` exits (Linux 5.3+), or -1: a child's exit
/// can then be polled beside its output pipes, without reaping it (so its process group id
/// stays reserved until the group has been killed). It is close-on-exec.
static inline int wharf_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}
#endif
