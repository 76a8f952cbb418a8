/* A stand-in for zenity that answers at once: it records when it was started (the presenter
 * being asked) and when it answered, as CLOCK_REALTIME nanoseconds, to $PORTAL_BENCH_TIMES, and
 * prints $PORTAL_BENCH_PICK as zenity prints a chosen file. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void) {
    long long asked = now();
    printf("%s\n", getenv("PORTAL_BENCH_PICK"));
    fflush(stdout);
    FILE *log = fopen(getenv("PORTAL_BENCH_TIMES"), "a");
    if (log) {
        fprintf(log, "%lld %lld\n", asked, now());
        fclose(log);
    }
    return 0;
}
