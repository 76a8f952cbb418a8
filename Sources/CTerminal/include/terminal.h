#ifndef WHARF_CTERMINAL_H
#define WHARF_CTERMINAL_H
/* What a program drawing on a terminal needs from the C library that Swift cannot do safely:
 * giving the terminal back from a signal handler (only async-signal-safe calls, no Swift),
 * the window's size (ioctl is variadic), and wcwidth under a UTF-8 locale of the calling
 * thread's own (uselocale), whatever the process's locale. Only WharfSystem imports this. */
#include <stddef.h>
#include <stdint.h>
#include <termios.h>

/* Arms the guard: until wharf_terminal_guard_restore, a signal that ends the process (SIGTERM,
 * SIGHUP, SIGINT, SIGQUIT; the crash signals SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE)
 * or exit() first ends the process group the terminal is lent to (wharf_terminal_guard_lend),
 * writes `restore` (length bytes, copied) to `fd`, sets `saved` on it and, when `foreground` is
 * a process group (else -1), gives that group the foreground back and resumes it, then lets the
 * signal do what it did before. `resize_fd` (-1 for none) gets one byte written on each
 * SIGWINCH. Returns 0, or -1 when already armed or `length` is too long. */
int wharf_terminal_guard_arm(int fd, const struct termios *saved, const uint8_t *restore, size_t length, int resize_fd, int foreground);
/* The process group running on the guarded terminal now (a file manager), or 0 for none: if
 * the terminal must be given back meanwhile, that group is ended first (SIGTERM, a second to
 * put its screen back, then SIGKILL). */
void wharf_terminal_guard_lend(int group);
/* Gives the terminal back now, if armed (once: later calls, and the handlers, do nothing), and
 * puts the signal handlers back. Returns 1 if it restored, 0 if it was not armed. */
int wharf_terminal_guard_restore(void);

/* The window's size: 0 with *rows and *columns set, or -1 with errno. */
int wharf_terminal_size(int fd, int *rows, int *columns);

/* The columns each of `count` Unicode scalars takes (wcwidth(3) in C.UTF-8: -1 for a control
 * or unassigned character). Returns 0, or -1 when no UTF-8 locale could be loaded. */
int wharf_terminal_widths(const uint32_t *scalars, size_t count, int *widths);
#endif
