#define _GNU_SOURCE
#include "terminal.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* The guard's state is written only while it is disarmed (armed == 0), by the one thread that
 * arms it, and read by whoever wins the exchange of `armed` back to 0: a handler, exit(), or
 * wharf_terminal_guard_restore. */
enum { restore_capacity = 512 };
static atomic_int armed;
static int guard_fd = -1;
static struct termios guard_mode;
static uint8_t guard_bytes[restore_capacity];
static size_t guard_length;
static atomic_int resize_fd = -1;
static int guard_foreground = -1;
static atomic_int lent_group;

static const int ending_signals[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
enum { ending_count = sizeof ending_signals / sizeof ending_signals[0] };
static struct sigaction previous[ending_count];
static struct sigaction previous_winch;

/* Ends the group the terminal is lent to, giving it up to a second to put its screen back. */
static void end_lent_group(void) {
    pid_t group = atomic_exchange(&lent_group, 0);
    if (group <= 0) return;
    kill(-group, SIGTERM);
    kill(-group, SIGCONT);  /* a stopped group takes SIGTERM only once it runs */
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    for (int tries = 0; tries < 100; tries++) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        /* Not reaped (WNOWAIT): whoever spawned it still waits for it. */
        if (waitid(P_PID, (id_t)group, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0) break;
        nanosleep(&pause, NULL);
    }
    kill(-group, SIGKILL);
}

static void give_back(void) {
    if (atomic_exchange(&armed, 0) != 1) return;
    /* Setting the mode or the foreground from a background group would stop this process. */
    sigset_t job_control, before;
    sigemptyset(&job_control);
    sigaddset(&job_control, SIGTTOU);
    sigaddset(&job_control, SIGTTIN);
    pthread_sigmask(SIG_BLOCK, &job_control, &before);
    end_lent_group();
    /* A descriptor opened O_NONBLOCK belongs to a terminal whose output may stall: what does
     * not go out within half a second is given up, and the mode is set at once rather than
     * after the output drains (which would wait as long as the terminal does). */
    int nonblocking = (fcntl(guard_fd, F_GETFL) & O_NONBLOCK) != 0;
    size_t written = 0;
    int waited_ms = 0;
    while (written < guard_length) {
        ssize_t count = write(guard_fd, guard_bytes + written, guard_length - written);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waited_ms < 500) {
            struct pollfd writable = { .fd = guard_fd, .events = POLLOUT };
            poll(&writable, 1, 50);
            waited_ms += 50;
            continue;
        }
        if (count <= 0) break;
        written += (size_t)count;
    }
    while (tcsetattr(guard_fd, nonblocking ? TCSANOW : TCSADRAIN, &guard_mode) != 0 && errno == EINTR) {}
    if (guard_foreground > 0 && tcgetpgrp(guard_fd) != guard_foreground) {
        while (tcsetpgrp(guard_fd, guard_foreground) != 0 && errno == EINTR) {}
        /* It may have been stopped reading the terminal meanwhile; nobody else resumes it. */
        if (guard_foreground != getpgrp()) kill(-guard_foreground, SIGCONT);
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void wharf_terminal_guard_lend(int group) { atomic_store(&lent_group, group > 0 ? group : 0); }

static void on_ending_signal(int number) {
    int saved_errno = errno;
    give_back();
    /* What the signal did before (the default: end the process, or the runtime's crash
     * reporter), now that the terminal is back. */
    for (int index = 0; index < ending_count; index++) {
        if (ending_signals[index] == number) sigaction(number, &previous[index], NULL);
    }
    errno = saved_errno;
    raise(number);
}

static void on_resize(int number) {
    (void)number;
    int saved_errno = errno;
    int fd = atomic_load(&resize_fd);
    if (fd >= 0) { uint8_t byte = 1; ssize_t ignored = write(fd, &byte, 1); (void)ignored; }
    errno = saved_errno;
}

static void at_exit(void) { give_back(); }

int wharf_terminal_guard_arm(int fd, const struct termios *saved, const uint8_t *restore, size_t length, int resize, int foreground) {
    if (atomic_load(&armed) || length > restore_capacity) return -1;
    guard_fd = fd;
    guard_foreground = foreground;
    atomic_store(&lent_group, 0);
    guard_mode = *saved;
    if (length > 0) memcpy(guard_bytes, restore, length);
    guard_length = length;
    atomic_store(&resize_fd, resize);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    action.sa_handler = on_ending_signal;
    action.sa_flags = SA_RESETHAND;
    for (int index = 0; index < ending_count; index++) sigaction(ending_signals[index], &action, &previous[index]);
    struct sigaction winch;
    memset(&winch, 0, sizeof winch);
    sigemptyset(&winch.sa_mask);
    winch.sa_handler = on_resize;
    winch.sa_flags = SA_RESTART;
    sigaction(SIGWINCH, &winch, &previous_winch);
    static atomic_int registered;
    if (atomic_exchange(&registered, 1) == 0) atexit(at_exit);
    atomic_store(&armed, 1);
    return 0;
}

int wharf_terminal_guard_restore(void) {
    int was_armed = atomic_load(&armed);
    give_back();
    if (!was_armed) return 0;
    for (int index = 0; index < ending_count; index++) sigaction(ending_signals[index], &previous[index], NULL);
    sigaction(SIGWINCH, &previous_winch, NULL);
    atomic_store(&resize_fd, -1);
    return 1;
}

int wharf_terminal_size(int fd, int *rows, int *columns) {
    struct winsize size;
    int result;
    do { result = ioctl(fd, TIOCGWINSZ, &size); } while (result != 0 && errno == EINTR);
    if (result != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

static locale_t utf8_locale;
static void load_utf8_locale(void) {
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!utf8_locale) utf8_locale = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
}

int wharf_terminal_widths(const uint32_t *scalars, size_t count, int *widths) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_utf8_locale);
    if (!utf8_locale) return -1;
    locale_t before = uselocale(utf8_locale);
    for (size_t index = 0; index < count; index++) widths[index] = wcwidth((wchar_t)scalars[index]);
    uselocale(before);
    return 0;
}
