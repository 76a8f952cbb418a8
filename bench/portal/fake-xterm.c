/* A stand-in for xterm, given to `wharf portal --terminal`: it records when it was started (the
 * terminal window being asked for), as CLOCK_REALTIME nanoseconds, to $PORTAL_BENCH_ASKED, and
 * exits without a window (the dialog then ends without an answer: response 2). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    FILE *log = fopen(getenv("PORTAL_BENCH_ASKED"), "a");
    if (log) {
        fprintf(log, "%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
        fclose(log);
    }
    return 0;
}
