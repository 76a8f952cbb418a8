/*
 * sandbox: runs a command that may read anything but write only beneath the given directories.
 *
 * The fuzzer drives every method of the server, exporter and `writeFile` included, with bytes
 * it invents; on a developer's machine (or as root in CI) a lucky input could otherwise replace
 * a real file. Landlock (Linux 5.13+, unprivileged) takes every write-like right away from the
 * process and its children except beneath the directories named here, and /dev/null.
 *
 * Usage: sandbox DIRECTORY... -- COMMAND [ARGUMENTS...]
 * Exits 3 when the kernel has no Landlock, so the caller can refuse to fuzz unprotected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Older kernel headers (Debian 12's) stop at ABI 2; the value is fixed by the kernel's ABI. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

static int fail(const char *what) {
    fprintf(stderr, "sandbox: %s: %s\n", what, strerror(errno));
    return 1;
}

static int allow(int ruleset, const char *path, __u64 rights) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return fail(path);
    struct landlock_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    int result = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
    return result == 0 ? 0 : fail(path);
}

int main(int argc, char **argv) {
    int separator = 1;
    while (separator < argc && strcmp(argv[separator], "--") != 0) separator++;
    if (separator + 1 >= argc) {
        fprintf(stderr, "usage: sandbox DIRECTORY... -- COMMAND [ARGUMENTS...]\n");
        return 2;
    }
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        fprintf(stderr, "sandbox: this kernel has no Landlock (%s)\n", strerror(errno));
        return 3;
    }
    /* Every right that changes the file system, as far as this kernel's ABI knows them. */
    __u64 file_writes = LANDLOCK_ACCESS_FS_WRITE_FILE;
    __u64 writes = file_writes | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                   LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                   LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                   LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2) writes |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) {
        writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
        file_writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
    }
    struct landlock_ruleset_attr attributes = {.handled_access_fs = writes};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    if (ruleset < 0) return fail("landlock_create_ruleset");
    for (int i = 1; i < separator; i++) {
        if (allow(ruleset, argv[i], writes) != 0) return 1;
    }
    if (allow(ruleset, "/dev/null", file_writes) != 0) return 1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("prctl(PR_SET_NO_NEW_PRIVS)");
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) return fail("landlock_restrict_self");
    close(ruleset);
    execvp(argv[separator + 1], argv + separator + 1);
    return fail(argv[separator + 1]);
}
