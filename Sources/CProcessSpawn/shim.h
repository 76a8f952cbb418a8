#ifndef WHARF_CPROCESSSPAWN_SHIM_H
#define WHARF_CPROCESSSPAWN_SHIM_H
/* The Linux and GNU calls WharfSystem needs (for Subprocess, Pipe and Poller, the allocator's
 * arena cap, opening a path that holds no symbolic link, and the processors a process may run
 * on) that Swift's Glibc module cannot reach. Only WharfSystem imports this module. */
#include <malloc.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <errno.h>
#include <linux/openat2.h>

/* Swift's Glibc module is built without _GNU_SOURCE, so these GNU extensions (in glibc since
 * 2.34, 2.9 and 2.29) are invisible to Swift. Declared here with glibc's own prototypes. */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
int pipe2(int fds[2], int flags);
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/// The child closes every descriptor from `from` on before it runs: it inherits nothing but
/// its standard streams, whatever other threads had open (or half made) at that moment.
static inline int wharf_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// The child starts in `path` (glibc 2.29): a folder that cannot be entered fails the spawn.
static inline int wharf_spawn_change_directory(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
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

/// open(2) of `path` with O_CLOEXEC, refused (ELOOP) when a symbolic link is anywhere on the
/// way, its last component included (openat2's RESOLVE_NO_SYMLINKS, Linux 5.6+): a path that
/// opens this way is already the file's resolved name. ENOSYS where openat2 is missing (a
/// seccomp filter that does not know it may say EPERM instead).
static inline int wharf_open_without_symlinks(const char *path, int flags, mode_t mode) {
#ifdef SYS_openat2
    struct open_how how = { .flags = (unsigned long long)(flags | O_CLOEXEC), .mode = mode, .resolve = RESOLVE_NO_SYMLINKS };
    return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}
/// How many processors this process may run on (its affinity mask, as `taskset` sets it), or
/// 0 when that cannot be told. The raw system call: glibc's wrapper and CPU_COUNT need
/// _GNU_SOURCE. Up to 1,024 processors are counted.
static inline int wharf_processors_available(void) {
    unsigned long mask[16];
    long size = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (size <= 0) return 0;
    int count = 0;
    for (long i = 0; i < size / (long)sizeof mask[0]; i++) count += __builtin_popcountl(mask[i]);
    return count;
}

#endif
