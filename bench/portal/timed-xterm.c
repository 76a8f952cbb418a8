/* Installed as `xterm` in a folder of its own and given to `wharf portal --terminal`: it records
 * when it was started (the terminal window being asked for), as CLOCK_REALTIME nanoseconds, to
 * $PORTAL_BENCH_ASKED, then becomes the real xterm with the same arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    FILE *log = fopen(getenv("PORTAL_BENCH_ASKED"), "a");
    if (log) {
        fprintf(log, "%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
        fclose(log);
    }
    (void)argc;
    argv[0] = "xterm";
    execv("/usr/bin/xterm", argv);
    perror("/usr/bin/xterm");
    return 127;
}
