/*
 * wharf-load: a load driver for JSON-RPC servers that speak the LSP base protocol over stdio.
 *
 * It spawns the server given after `--`, talks to it over two real pipes with real
 * `Content-Length` framing, measures one thing, and prints the result as one JSON line on
 * standard output. The bench script runs it many times and takes medians; the driver itself
 * does one trial per run so that every trial gets a fresh process.
 *
 * Why C: the driver must be much faster than what it measures. A Python driver tops out near
 * 57,000 requests per second on this machine, below the server's target, so it would measure
 * itself. Here the hot loops are a write(2), a read(2) and a scan for "\r\n\r\n".
 *
 * Modes:
 *   roundtrip   N sequential pings, one in flight at a time: median, p99, mean (µs).
 *   throughput  N pings written back to back by one thread while another reads the replies:
 *               pings per second from the first byte written to the last reply read.
 *   startup     time from spawn to the complete `initialize` reply (ms), then shutdown/exit and
 *               the time until the process has ended.
 *   rss         VmRSS and VmHWM (KiB, from /proc/PID/status) after initialize, a few pings and
 *               a pause: the resident memory of an idle server.
 *   cycles      N dialogs, each presented (-m presentImporter -p PARAMS), answered by the server's
 *               own presenter (`--presenter script:FILE`) and ended with `dialog/completed`; up
 *               to -W at once. Dialogs per second; with -W 1 also each cycle's latency (p50,
 *               p99: from the request written to its `dialog/completed` read).
 *   frontend-cycles  N importer cycles one after the other, the driver presenting its own
 *               dialogs (`presentsDialogs`): presentImporter, presenter/show, dialog/choose of -u
 *               URL, dialog/completed. Per-cycle latency (p50, p99) and cycles per second: the
 *               round trip of a presenter answering over the protocol, on one connection.
 *   daemon      The server given is `wharf --listen=SOCKET …` (-s SOCKET): the driver connects a
 *               presenter connection (`"role": "presenter"`, answering every presenter/show with
 *               dialog/choose of -u URL) and -C clients, each on a thread of its own running N
 *               importer cycles one after the other. Every ending must be the client's own
 *               dialog's, once. Per-cycle latency over all clients (p50, p99), cycles per
 *               second, the daemon's VmRSS and threads with every client connected; then
 *               SIGTERM, and the daemon's exit status.
 *   open-dialogs  VmRSS idle, then with N dialogs open (the driver claims to present dialogs
 *               and never answers, so they stay open; the server needs
 *               `--max-dialogs-per-client N`).
 *   syscall     No server: what one system call costs on this host (N fstat(2) calls on
 *               standard input, nanoseconds each, the best of five runs). It tells hosts apart:
 *               a dialog cycle makes about thirteen system calls and two thread wake-ups, and a
 *               host's mitigations (page-table isolation, IBRS, buffer clearing on every return
 *               to user space) can make each of them cost several times what it does elsewhere.
 *
 * Every reply is checked: it must carry the id that was sent and a `result` member. A reply
 * that does not is a failure (exit status 1), never a number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* MARK: - Small helpers */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#include <stdarg.h>
static void die(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fputs("wharf-load: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The value at quantile q (0…1) of sorted samples, nearest rank. */
static uint64_t quantile(const uint64_t *sorted, size_t count, double q) {
    if (count == 0) return 0;
    size_t rank = (size_t)(q * (double)count + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    return sorted[rank - 1];
}

static void write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            die("write to the server failed: %s", strerror(errno));
        }
        bytes += written;
        length -= (size_t)written;
    }
}

/* MARK: - The server process */

typedef struct {
    pid_t pid;
    int to_server;   /* we write requests here */
    int from_server; /* we read replies here */
} Server;

/* Spawns argv with stdin/stdout on fresh pipes; stderr is inherited (or /dev/null with -q). */
static Server spawn_server(char **argv, bool quiet) {
    int in_pipe[2], out_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) die("pipe: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    if (quiet) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (status != 0) die("cannot start %s: %s", argv[0], strerror(status));
    close(in_pipe[0]);
    close(out_pipe[1]);
    return (Server){.pid = pid, .to_server = in_pipe[1], .from_server = out_pipe[0]};
}

/* Closes the server's input, reads (and drops) whatever it still writes until it closes its
 * output, as a client must (a server blocked writing to a client that stopped reading cannot
 * exit), then reaps it. Returns its exit status. */
static int wait_server(Server *server) {
    if (server->to_server >= 0) close(server->to_server);
    server->to_server = -1;
    char sink[65536];
    for (;;) {
        ssize_t count = read(server->from_server, sink, sizeof sink);
        if (count > 0 || (count < 0 && errno == EINTR)) continue;
        break;
    }
    int status = 0;
    while (waitpid(server->pid, &status, 0) < 0) {
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    }
    close(server->from_server);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* MARK: - Framing */

/* Reads LSP frames from one descriptor through a large buffer. */
typedef struct {
    int fd;
    char *buffer;
    size_t capacity, start, end;
} FrameReader;

static FrameReader reader_make(int fd) {
    FrameReader reader = {.fd = fd, .capacity = 1 << 20};
    reader.buffer = malloc(reader.capacity + 1);
    reader.buffer[0] = 0;
    if (!reader.buffer) die("out of memory");
    return reader;
}

/* Reads more bytes; false at end of input. */
static bool reader_fill(FrameReader *reader) {
    if (reader->start > 0) {
        memmove(reader->buffer, reader->buffer + reader->start, reader->end - reader->start);
        reader->end -= reader->start;
        reader->start = 0;
    }
    if (reader->end == reader->capacity) {
        reader->capacity *= 2;
        reader->buffer = realloc(reader->buffer, reader->capacity + 1);
        if (!reader->buffer) die("out of memory");
    }
    for (;;) {
        ssize_t count = read(reader->fd, reader->buffer + reader->end, reader->capacity - reader->end);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) die("read from the server failed: %s", strerror(errno));
        if (count == 0) return false;
        reader->end += (size_t)count;
        reader->buffer[reader->end] = 0; /* so strcasestr stops at the end of what was read */
        return true;
    }
}

/* The next frame's body (not NUL-terminated) and its length; NULL at end of input. The
 * pointer is valid until the next call. */
static const char *reader_next(FrameReader *reader, size_t *length) {
    for (;;) {
        char *begin = reader->buffer + reader->start;
        size_t available = reader->end - reader->start;
        char *terminator = available >= 4 ? memmem(begin, available, "\r\n\r\n", 4) : NULL;
        if (terminator) {
            /* Our peers write exactly `Content-Length: N`; accept any case and spacing anyway. */
            char *header = strcasestr(begin, "content-length:");
            if (!header || header > terminator) die("a reply header without Content-Length");
            size_t body_length = strtoul(header + 15, NULL, 10);
            size_t header_length = (size_t)(terminator - begin) + 4;
            if (available >= header_length + body_length) {
                reader->start += header_length + body_length;
                *length = body_length;
                return begin + header_length;
            }
        }
        if (!reader_fill(reader)) {
            if (reader->end > reader->start) die("the server's output ended in the middle of a frame");
            return NULL;
        }
    }
}

/* The integer id of a response body, or -1 when it has none (a notification). Replies are
 * compact JSON from a handful of serialisers; all of them write `"id":` followed by the
 * number, possibly with a space. */
static long long reply_id(const char *body, size_t length) {
    const char *key = memmem(body, length, "\"id\"", 4);
    if (!key) return -1;
    const char *p = key + 4;
    const char *end = body + length;
    while (p < end && (*p == ' ' || *p == ':')) p++;
    if (p >= end || *p < '0' || *p > '9') return -1;
    long long value = 0;
    while (p < end && *p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    return value;
}

static bool is_result(const char *body, size_t length) {
    return memmem(body, length, "\"result\"", 8) != NULL;
}

static bool is_response(const char *body, size_t length) {
    return memmem(body, length, "\"method\"", 8) == NULL;
}

/* Writes one framed request to out, which has room for 4200 bytes. NULL params are left out
 * (JSON-RPC allows no params, but not `"params":null`). */
static size_t frame_request(char *out, long long id, const char *method, const char *params, size_t params_length) {
    char body[4096];
    if (params && params_length > 3500) die("request too long");
    int body_length = params
        ? snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":%.*s}", id, method, (int)params_length, params)
        : snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\"}", id, method);
    if (body_length < 0 || (size_t)body_length >= sizeof body) die("request too long");
    int total = sprintf(out, "Content-Length: %d\r\n\r\n%s", body_length, body);
    return (size_t)total;
}

/* Writes every byte of the buffers in `parts`, in order, with as few writev(2) calls as the
 * pipe allows (the buffers are not copied into one frame first). */
static void writev_all(int fd, struct iovec *parts, int count) {
    while (count > 0) {
        ssize_t written = writev(fd, parts, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            die("write to the server failed: %s", strerror(errno));
        }
        size_t left = (size_t)written;
        while (count > 0 && left >= parts->iov_len) {
            left -= parts->iov_len;
            parts++;
            count--;
        }
        if (count > 0) {
            parts->iov_base = (char *)parts->iov_base + left;
            parts->iov_len -= left;
        }
    }
}

/* Sends one request whose params are `params_length` bytes at `params` (NULL: none). */
static void send_params(Server *server, long long id, const char *method, const char *params, size_t params_length) {
    if (params && params_length > 3500) {
        /* Large params (an exporter's base64 document, tens of MiB): the header and the
         * envelope around them are framed apart and everything goes out in one writev loop,
         * so the params are never copied. */
        char head[512];
        const char *tail = "}";
        int envelope = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":", id, method);
        if (envelope < 0 || (size_t)envelope >= sizeof head) die("method name too long");
        char header[64];
        int header_length = snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n",
                                     (size_t)envelope + params_length + strlen(tail));
        struct iovec parts[] = {
            {.iov_base = header, .iov_len = (size_t)header_length},
            {.iov_base = head, .iov_len = (size_t)envelope},
            {.iov_base = (void *)params, .iov_len = params_length},
            {.iov_base = (void *)tail, .iov_len = strlen(tail)},
        };
        writev_all(server->to_server, parts, 4);
        return;
    }
    char frame[4200];
    size_t length = frame_request(frame, id, method, params, params_length);
    write_all(server->to_server, frame, length);
}

static void send_request(Server *server, long long id, const char *method, const char *params) {
    send_params(server, id, method, params, params ? strlen(params) : 0);
}

/* `-p @FILE`: the params are the contents of FILE (for documents too large for a command
 * line), mapped rather than read: a document of tens of MiB goes from the page cache to the
 * pipe without being copied into this process first (50 ms less for 85 MiB here, all of it
 * inside a timed export). Not NUL-terminated: the length is in *length. */
static const char *params_argument(const char *value, size_t *length) {
    if (value[0] != '@') {
        *length = strlen(value);
        return value;
    }
    int fd = open(value + 1, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0) die("cannot open %s: %s", value + 1, strerror(errno));
    *length = (size_t)status.st_size;
    if (*length == 0) die("%s is empty", value + 1);
    void *text = mmap(NULL, *length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (text == MAP_FAILED) die("cannot map %s: %s", value + 1, strerror(errno));
    close(fd);
    return text;
}

static void send_notification(Server *server, const char *method, const char *params) {
    char body[512], frame[600];
    int body_length = params
        ? snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":%s}", method, params)
        : snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\"}", method);
    int length = snprintf(frame, sizeof frame, "Content-Length: %d\r\n\r\n%s", body_length, body);
    write_all(server->to_server, frame, (size_t)length);
}

/* Waits for the response to `id`, skipping notifications. Dies on anything else, and on an
 * error response when a result is wanted. */
static void expect_response(FrameReader *reader, long long id, bool want_result) {
    for (;;) {
        size_t length;
        const char *body = reader_next(reader, &length);
        if (!body) die("the server closed its output while request %lld was pending", id);
        if (!is_response(body, length)) continue;
        long long got = reply_id(body, length);
        if (got != id) die("expected the reply to %lld, got: %.*s", id, (int)(length > 200 ? 200 : length), body);
        if (want_result && !is_result(body, length)) die("request %lld failed: %.*s", id, (int)(length > 300 ? 300 : length), body);
        return;
    }
}

static const char *initialize_params = "{\"processId\":null,\"clientInfo\":{\"name\":\"wharf-load\"},\"capabilities\":{}}";
/* For modes where the driver is the dialogs' presenter (it never answers, so they stay open). */
static const char *frontend_initialize_params =
    "{\"processId\":null,\"clientInfo\":{\"name\":\"wharf-load\"},\"capabilities\":{\"presentsDialogs\":true}}";

static void initialize_with(Server *server, FrameReader *reader, const char *params) {
    send_request(server, 0, "initialize", params);
    expect_response(reader, 0, true);
    send_notification(server, "initialized", "{}");
}

static void initialize(Server *server, FrameReader *reader) {
    send_request(server, 0, "initialize", initialize_params);
    expect_response(reader, 0, true);
    send_notification(server, "initialized", "{}");
}

/* shutdown, exit, then EOF; returns the exit status. */
static int finish(Server *server, FrameReader *reader, long long id) {
    send_request(server, id, "shutdown", NULL);
    expect_response(reader, id, true);
    send_notification(server, "exit", NULL);
    return wait_server(server);
}

/* MARK: - Modes */

typedef struct {
    long count;
    long warmup;
    long window;
    long clients;
    const char *url;
    const char *socket_path;
    bool quiet;
    const char *method;
    const char *params;
    size_t params_length;
    char **argv;
} Options;

static void mode_roundtrip(const Options *options) {
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize(&server, &reader);
    long long id = 1;
    for (long i = 0; i < options->warmup; i++, id++) {
        send_params(&server, id, options->method, options->params, options->params_length);
        expect_response(&reader, id, true);
    }
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)(options->count + 1));
    char frame[4200];
    for (long i = 0; i < options->count; i++, id++) {
        size_t length = frame_request(frame, id, options->method, options->params, options->params_length);
        uint64_t start = now_ns();
        write_all(server.to_server, frame, length);
        expect_response(&reader, id, true);
        samples[i] = now_ns() - start;
    }
    int status = finish(&server, &reader, id);
    if (options->count == 0) {
        /* A run that only starts and ends the server: the baseline for instruction counts. */
        printf("{\"mode\":\"roundtrip\",\"count\":0,\"exit\":%d}\n", status);
        free(samples);
        return;
    }
    double sum = 0;
    for (long i = 0; i < options->count; i++) sum += (double)samples[i];
    qsort(samples, (size_t)options->count, sizeof(uint64_t), compare_u64);
    printf("{\"mode\":\"roundtrip\",\"count\":%ld,\"median_us\":%.2f,\"p99_us\":%.2f,\"mean_us\":%.2f,\"min_us\":%.2f,\"exit\":%d}\n",
           options->count, quantile(samples, (size_t)options->count, 0.5) / 1e3,
           quantile(samples, (size_t)options->count, 0.99) / 1e3, sum / (double)options->count / 1e3,
           samples[0] / 1e3, status);
    free(samples);
}

typedef struct {
    int fd;
    char *bytes;
    size_t length;
    uint64_t started;
} WriterJob;

static void *writer_thread(void *context) {
    WriterJob *job = context;
    job->started = now_ns();
    write_all(job->fd, job->bytes, job->length);
    return NULL;
}

static void mode_throughput(const Options *options) {
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize(&server, &reader);
    /* Every request is framed before the clock starts, so only the server's work is timed. */
    long long first_id = 1;
    size_t capacity = (size_t)options->count * 200 + 4096;
    char *bytes = malloc(capacity);
    size_t length = 0;
    for (long i = 0; i < options->count; i++) {
        length += frame_request(bytes + length, first_id + i, options->method, options->params, options->params_length);
        if (length + 4200 > capacity) die("request buffer too small");
    }
    unsigned char *seen = calloc((size_t)options->count, 1);
    WriterJob job = {.fd = server.to_server, .bytes = bytes, .length = length};
    pthread_t thread;
    uint64_t start = now_ns();
    if (pthread_create(&thread, NULL, writer_thread, &job) != 0) die("pthread_create failed");
    for (long received = 0; received < options->count;) {
        size_t body_length;
        const char *body = reader_next(&reader, &body_length);
        if (!body) die("the server closed its output after %ld of %ld replies", received, options->count);
        if (!is_response(body, body_length)) continue;
        long long id = reply_id(body, body_length);
        if (id < first_id || id >= first_id + options->count) die("a reply with an unexpected id: %.*s", (int)body_length, body);
        if (!is_result(body, body_length)) die("request %lld failed: %.*s", id, (int)body_length, body);
        if (seen[id - first_id]++) die("two replies to request %lld", id);
        received++;
    }
    uint64_t elapsed = now_ns() - start;
    pthread_join(thread, NULL);
    int status = finish(&server, &reader, first_id + options->count);
    printf("{\"mode\":\"throughput\",\"count\":%ld,\"seconds\":%.6f,\"per_second\":%.0f,\"exit\":%d}\n",
           options->count, elapsed / 1e9, (double)options->count / (elapsed / 1e9), status);
    free(seen);
    free(bytes);
}

static void mode_startup(const Options *options) {
    uint64_t start = now_ns();
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    send_request(&server, 0, "initialize", initialize_params);
    expect_response(&reader, 0, true);
    uint64_t initialized = now_ns();
    send_notification(&server, "initialized", "{}");
    uint64_t ending = now_ns();
    int status = finish(&server, &reader, 1);
    uint64_t ended = now_ns();
    printf("{\"mode\":\"startup\",\"initialize_ms\":%.3f,\"shutdown_to_exit_ms\":%.3f,\"exit\":%d}\n",
           (initialized - start) / 1e6, (ended - ending) / 1e6, status);
}

/* A field of /proc/PID/status in KiB, or -1. */
static long proc_status_kib(pid_t pid, const char *field) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    long value = -1;
    size_t field_length = strlen(field);
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, field, field_length) == 0 && line[field_length] == ':') {
            value = strtol(line + field_length + 1, NULL, 10);
            break;
        }
    }
    fclose(file);
    return value;
}

static void mode_rss(const Options *options) {
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize(&server, &reader);
    long long id = 1;
    for (long i = 0; i < options->count; i++, id++) {
        send_params(&server, id, options->method, options->params, options->params_length);
        expect_response(&reader, id, true);
    }
    /* Let anything lazy (thread stacks, timers, the Python interpreter's GC) settle. */
    usleep(300 * 1000);
    long rss = proc_status_kib(server.pid, "VmRSS");
    long hwm = proc_status_kib(server.pid, "VmHWM");
    long threads = proc_status_kib(server.pid, "Threads");
    int status = finish(&server, &reader, id);
    printf("{\"mode\":\"rss\",\"vmrss_kib\":%ld,\"vmhwm_kib\":%ld,\"threads\":%ld,\"exit\":%d}\n", rss, hwm, threads, status);
}

/* The `method` of a server message, copied into `out` ("" for a response). */
static void message_method(const char *body, size_t length, char *out, size_t size) {
    out[0] = 0;
    const char *key = memmem(body, length, "\"method\"", 8);
    if (!key) return;
    const char *p = key + 8, *end = body + length;
    while (p < end && (*p == ' ' || *p == ':')) p++;
    if (p >= end || *p != '"') return;
    p++;
    size_t n = 0;
    while (p < end && *p != '"' && n + 1 < size) out[n++] = *p++;
    out[n] = 0;
}

/* A string member's value (`"name":"value"`, no escapes) copied into `out`; false if absent. */
static bool string_member(const char *body, size_t length, const char *name, char *out, size_t size) {
    char key[64];
    int key_length = snprintf(key, sizeof key, "\"%s\"", name);
    const char *found = memmem(body, length, key, (size_t)key_length);
    if (!found) return false;
    const char *p = found + key_length, *end = body + length;
    while (p < end && (*p == ' ' || *p == ':')) p++;
    if (p >= end || *p != '"') return false;
    p++;
    size_t n = 0;
    while (p < end && *p != '"' && n + 1 < size) out[n++] = *p++;
    out[n] = 0;
    return p < end;
}

static void print_latencies(uint64_t *samples, size_t count) {
    qsort(samples, count, sizeof(uint64_t), compare_u64);
    printf("\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f", quantile(samples, count, 0.5) / 1e3,
           quantile(samples, count, 0.99) / 1e3, samples[count - 1] / 1e3);
}

/* Importer (or exporter) cycles: request, its `{dialogId}` reply, and the dialog's ending.
 * Up to `window` dialogs are open at once (1: strictly one after the other). Every dialog
 * must end with `dialog/completed` carrying `urls`; anything else is a failure. The server's
 * presenter must answer by itself (`--presenter script:FILE`). */
static void mode_cycles(const Options *options) {
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize(&server, &reader);
    long long next_id = 1;
    long sent = 0, replied = 0, completed = 0;
    uint64_t *latencies = calloc((size_t)options->count, sizeof(uint64_t));
    uint64_t cycle_started = 0;
    uint64_t start = now_ns();
    while (completed < options->count) {
        while (sent < options->count && sent - completed < options->window) {
            cycle_started = now_ns();
            send_params(&server, next_id++, options->method, options->params, options->params_length);
            sent++;
        }
        size_t length;
        const char *body = reader_next(&reader, &length);
        if (!body) die("the server closed its output after %ld of %ld dialogs ended", completed, options->count);
        char method[64];
        message_method(body, length, method, sizeof method);
        if (method[0] == 0) {
            if (!is_result(body, length)) die("a present request failed: %.*s", (int)(length > 300 ? 300 : length), body);
            replied++;
        } else if (strcmp(method, "dialog/completed") == 0) {
            if (!memmem(body, length, "\"urls\"", 6)) die("a dialog failed: %.*s", (int)(length > 300 ? 300 : length), body);
            latencies[completed] = now_ns() - cycle_started;
            completed++;
        } else if (strcmp(method, "dialog/cancelled") == 0) {
            die("a dialog was cancelled: %.*s", (int)(length > 300 ? 300 : length), body);
        }
    }
    uint64_t elapsed = now_ns() - start;
    /* The last replies may trail the last endings. */
    while (replied < options->count) {
        size_t length;
        const char *body = reader_next(&reader, &length);
        if (!body) die("the server closed its output before answering every request");
        char method[64];
        message_method(body, length, method, sizeof method);
        if (method[0] == 0) replied++;
    }
    long rss = proc_status_kib(server.pid, "VmRSS");
    int status = finish(&server, &reader, next_id);
    printf("{\"mode\":\"cycles\",\"count\":%ld,\"window\":%ld,\"seconds\":%.6f,\"per_second\":%.0f,\"vmrss_kib\":%ld,",
           options->count, options->window, elapsed / 1e9, (double)options->count / (elapsed / 1e9), rss);
    /* One at a time, a cycle is the time from its request to its ending. */
    if (options->window == 1) {
        print_latencies(latencies, (size_t)options->count);
        printf(",");
    }
    printf("\"exit\":%d}\n", status);
    free(latencies);
}

/* The `method` of the next message that has one, skipping responses (checked to be results). */
static const char *next_notification(FrameReader *reader, size_t *length, char *method, size_t size) {
    for (;;) {
        const char *body = reader_next(reader, length);
        if (!body) return NULL;
        message_method(body, *length, method, size);
        if (method[0] != 0) return body;
        if (!is_result(body, *length)) die("a request failed: %.*s", (int)(*length > 300 ? 300 : *length), body);
    }
}

/* One importer cycle of a client whose dialogs another presents: present, its reply naming
 * the dialog, and that dialog's ending (which must be `dialog/completed` with URLs, and must
 * be its own). Returns the latency. */
static uint64_t importer_cycle(int fd, FrameReader *reader, long long id, const Options *options) {
    uint64_t start = now_ns();
    char frame[4200];
    size_t frame_length = frame_request(frame, id, options->method, options->params, options->params_length);
    write_all(fd, frame, frame_length);
    char dialog[64] = "";
    for (;;) {
        size_t length;
        const char *body = reader_next(reader, &length);
        if (!body) die("the server closed the connection during a cycle");
        char method[64];
        message_method(body, length, method, sizeof method);
        if (method[0] == 0) {
            if (reply_id(body, length) != id || !is_result(body, length) || !string_member(body, length, "dialogId", dialog, sizeof dialog))
                die("an unexpected answer: %.*s", (int)(length > 300 ? 300 : length), body);
            continue;
        }
        char about[64] = "";
        string_member(body, length, "dialogId", about, sizeof about);
        if (dialog[0] == 0 || strcmp(about, dialog) != 0) die("a notification about another dialog (%s, mine is %s): %.*s", about, dialog, (int)(length > 300 ? 300 : length), body);
        if (strcmp(method, "dialog/completed") == 0) {
            if (!memmem(body, length, "\"urls\"", 6)) die("a dialog failed: %.*s", (int)(length > 300 ? 300 : length), body);
            return now_ns() - start;
        }
        if (strcmp(method, "dialog/cancelled") == 0) die("a dialog was cancelled: %.*s", (int)(length > 300 ? 300 : length), body);
    }
}

/* Answers a `presenter/show` on `fd` with `dialog/choose` of `url` (request id `id`). */
static void choose(int fd, const char *show, size_t length, long long id, const char *url) {
    char dialog[64];
    if (!string_member(show, length, "dialogId", dialog, sizeof dialog)) die("presenter/show without a dialogId");
    char params[1024];
    snprintf(params, sizeof params, "{\"dialogId\":\"%s\",\"urls\":[\"%s\"]}", dialog, url);
    char frame[4200];
    size_t frame_length = frame_request(frame, id, "dialog/choose", params, strlen(params));
    write_all(fd, frame, frame_length);
}

static void mode_frontend_cycles(const Options *options) {
    if (!options->url) die("frontend-cycles needs -u URL");
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize_with(&server, &reader, frontend_initialize_params);
    uint64_t *latencies = calloc((size_t)options->count, sizeof(uint64_t));
    long long id = 1;
    uint64_t start = now_ns();
    for (long i = 0; i < options->count; i++) {
        uint64_t cycle = now_ns();
        send_params(&server, id++, options->method, options->params, options->params_length);
        for (bool done = false; !done;) {
            size_t length;
            char method[64];
            const char *body = next_notification(&reader, &length, method, sizeof method);
            if (!body) die("the server closed its output during cycle %ld", i);
            if (strcmp(method, "presenter/show") == 0) choose(server.to_server, body, length, id++, options->url);
            else if (strcmp(method, "dialog/completed") == 0) done = true;
            else if (strcmp(method, "dialog/cancelled") == 0) die("a dialog was cancelled");
        }
        latencies[i] = now_ns() - cycle;
    }
    uint64_t elapsed = now_ns() - start;
    int status = finish(&server, &reader, id);
    printf("{\"mode\":\"frontend-cycles\",\"count\":%ld,\"seconds\":%.6f,\"per_second\":%.0f,",
           options->count, elapsed / 1e9, (double)options->count / (elapsed / 1e9));
    print_latencies(latencies, (size_t)options->count);
    printf(",\"exit\":%d}\n", status);
    free(latencies);
}

/* MARK: - The daemon */

static int connect_socket(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s", strerror(errno));
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) die("socket path too long: %s", path);
    strcpy(address.sun_path, path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Initializes a connection with `params` and waits for the answer. */
static void socket_initialize(int fd, FrameReader *reader, const char *params) {
    char frame[4200];
    size_t length = frame_request(frame, 0, "initialize", params, strlen(params));
    write_all(fd, frame, length);
    expect_response(reader, 0, true);
}

typedef struct {
    const Options *options;
    long index;
    int fd;
    FrameReader reader;
    uint64_t *latencies; /* options->count of them */
} DaemonClient;

static void *daemon_client_thread(void *context) {
    DaemonClient *client = context;
    for (long i = 0; i < client->options->count; i++) {
        client->latencies[i] = importer_cycle(client->fd, &client->reader, i + 1, client->options);
    }
    return NULL;
}

typedef struct {
    int fd;
    FrameReader reader;
    const char *url;
    long shown;
} PresenterConnection;

static void *presenter_thread(void *context) {
    PresenterConnection *presenter = context;
    long long id = 1;
    for (;;) {
        size_t length;
        char method[64];
        const char *body = next_notification(&presenter->reader, &length, method, sizeof method);
        if (!body) return NULL; /* the daemon is gone */
        if (strcmp(method, "presenter/show") != 0) continue;
        if (!memmem(body, length, "\"client\"", 8)) die("presenter/show without the client it is for");
        choose(presenter->fd, body, length, id++, presenter->url);
        presenter->shown++;
    }
}

static void mode_daemon(const Options *options) {
    if (!options->url || !options->socket_path) die("daemon needs -u URL and -s SOCKET");
    Server server = spawn_server(options->argv, options->quiet);
    close(server.to_server);
    server.to_server = -1;
    int presenter_fd = -1;
    for (int attempt = 0; attempt < 2000 && presenter_fd < 0; attempt++) {
        presenter_fd = connect_socket(options->socket_path);
        if (presenter_fd < 0) usleep(5000);
    }
    if (presenter_fd < 0) die("the daemon did not listen on %s", options->socket_path);
    PresenterConnection presenter = {.fd = presenter_fd, .reader = reader_make(presenter_fd), .url = options->url};
    socket_initialize(presenter_fd, &presenter.reader,
                      "{\"clientInfo\":{\"name\":\"wharf-load-presenter\"},\"capabilities\":{},\"role\":\"presenter\"}");
    long clients = options->clients;
    DaemonClient *each = calloc((size_t)clients, sizeof(DaemonClient));
    uint64_t *latencies = calloc((size_t)(clients * options->count), sizeof(uint64_t));
    for (long c = 0; c < clients; c++) {
        int fd = connect_socket(options->socket_path);
        if (fd < 0) die("connecting client %ld failed: %s", c, strerror(errno));
        each[c] = (DaemonClient){.options = options, .index = c, .fd = fd, .reader = reader_make(fd),
                                 .latencies = latencies + c * options->count};
        char params[256];
        snprintf(params, sizeof params, "{\"clientInfo\":{\"name\":\"wharf-load-%ld\"},\"capabilities\":{}}", c);
        socket_initialize(fd, &each[c].reader, params);
    }
    pthread_t presenting;
    if (pthread_create(&presenting, NULL, presenter_thread, &presenter) != 0) die("pthread_create failed");
    pthread_t *threads = calloc((size_t)clients, sizeof(pthread_t));
    uint64_t start = now_ns();
    for (long c = 0; c < clients; c++) {
        if (pthread_create(&threads[c], NULL, daemon_client_thread, &each[c]) != 0) die("pthread_create failed");
    }
    for (long c = 0; c < clients; c++) pthread_join(threads[c], NULL);
    uint64_t elapsed = now_ns() - start;
    long rss = proc_status_kib(server.pid, "VmRSS");
    long hwm = proc_status_kib(server.pid, "VmHWM");
    long threads_now = proc_status_kib(server.pid, "Threads");
    size_t total = (size_t)(clients * options->count);
    if ((size_t)presenter.shown != total) die("the presenter saw %ld dialogs, not %zu", presenter.shown, total);
    /* SIGTERM with every client still connected: each is owed the end of its connection. */
    kill(server.pid, SIGTERM);
    int status = 0;
    while (waitpid(server.pid, &status, 0) < 0) {
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    }
    for (long c = 0; c < clients; c++) {
        size_t length;
        while (reader_next(&each[c].reader, &length)) {}
        close(each[c].fd);
    }
    pthread_join(presenting, NULL);
    close(server.from_server);
    printf("{\"mode\":\"daemon\",\"clients\":%ld,\"cycles\":%ld,\"seconds\":%.6f,\"per_second\":%.0f,\"vmrss_kib\":%ld,"
           "\"vmhwm_kib\":%ld,\"threads\":%ld,",
           clients, options->count, elapsed / 1e9, (double)total / (elapsed / 1e9), rss, hwm, threads_now);
    print_latencies(latencies, total);
    printf(",\"exit\":%d}\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    free(latencies);
    free(threads);
    free(each);
}

/* Resident memory with `count` dialogs open: the driver says it presents dialogs itself and
 * never answers, so every dialog stays open. Memory is read after initialize (and a pause),
 * and again once every dialog has been presented (and a pause). */
static void mode_open_dialogs(const Options *options) {
    Server server = spawn_server(options->argv, options->quiet);
    FrameReader reader = reader_make(server.from_server);
    initialize_with(&server, &reader, frontend_initialize_params);
    long long id = 1;
    for (long i = 0; i < 100; i++, id++) {
        send_request(&server, id, "ping", "{}");
        expect_response(&reader, id, true);
    }
    usleep(300 * 1000);
    long idle = proc_status_kib(server.pid, "VmRSS");
    long window = options->window > 0 ? options->window : 64;
    long sent = 0, presented = 0;
    while (presented < options->count) {
        while (sent < options->count && sent - presented < window) {
            send_params(&server, id++, options->method, options->params, options->params_length);
            sent++;
        }
        size_t length;
        const char *body = reader_next(&reader, &length);
        if (!body) die("the server closed its output after %ld dialogs", presented);
        if (!is_response(body, length)) continue; /* presenter/show */
        if (!is_result(body, length)) die("presenting dialog %ld failed: %.*s", presented + 1, (int)(length > 300 ? 300 : length), body);
        presented++;
    }
    usleep(300 * 1000);
    long open = proc_status_kib(server.pid, "VmRSS");
    long hwm = proc_status_kib(server.pid, "VmHWM");
    int status = finish(&server, &reader, id);
    printf("{\"mode\":\"open-dialogs\",\"count\":%ld,\"idle_kib\":%ld,\"open_kib\":%ld,\"vmhwm_kib\":%ld,\"exit\":%d}\n",
           options->count, idle, open, hwm, status);
}

/* MARK: - The host */

static void mode_syscall(const Options *options) {
    uint64_t best = UINT64_MAX;
    for (int run = 0; run < 5; run++) {
        struct stat status;
        uint64_t started = now_ns();
        for (long call = 0; call < options->count; call++) fstat(0, &status);
        uint64_t elapsed = now_ns() - started;
        if (elapsed < best) best = elapsed;
    }
    printf("{\"mode\":\"syscall\",\"count\":%ld,\"fstat_ns\":%.0f}\n", options->count, (double)best / (double)options->count);
}

/* MARK: - Command line */

static void usage(void) {
    fputs("usage: wharf-load MODE [-n COUNT] [-w WARMUP] [-W WINDOW] [-m METHOD] [-p PARAMS] [-q] -- SERVER [ARGS...]\n"
          "       wharf-load syscall [-n COUNT]\n"
          "  modes: roundtrip, throughput, startup, rss, cycles, frontend-cycles, daemon, open-dialogs,\n"
          "         syscall (see the top of wharf-load.c)\n"
          "  -n COUNT   requests measured (roundtrip 10000, throughput 200000, rss 100, cycles 10000,\n"
          "             open-dialogs 10000), or system calls made (syscall 200000)\n"
          "  -W WINDOW  dialogs open at once (cycles 1, open-dialogs 64)\n"
          "  -w WARMUP  requests sent before measuring (roundtrip only; default 1000)\n"
          "  -m METHOD  request method (default ping)\n"
          "  -p PARAMS  request params as JSON (default {}); @FILE reads them from FILE\n"
          "  -C CLIENTS daemon: clients connected at once (default 200)\n"
          "  -s SOCKET  daemon: the socket the server listens on\n"
          "  -u URL     frontend-cycles, daemon: what the presenter chooses\n"
          "  -q         send the server's standard error to /dev/null\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) usage();
    const char *mode = argv[1];
    Options options = {.count = -1, .warmup = 1000, .method = "ping", .params = "{}", .params_length = 2};
    int index = 2;
    for (; index < argc; index++) {
        const char *argument = argv[index];
        if (strcmp(argument, "--") == 0) {
            index++;
            break;
        }
        if (strcmp(argument, "-q") == 0) {
            options.quiet = true;
            continue;
        }
        if (index + 1 >= argc) usage();
        const char *value = argv[++index];
        if (strcmp(argument, "-n") == 0) options.count = atol(value);
        else if (strcmp(argument, "-w") == 0) options.warmup = atol(value);
        else if (strcmp(argument, "-m") == 0) options.method = value;
        else if (strcmp(argument, "-p") == 0) options.params = params_argument(value, &options.params_length);
        else if (strcmp(argument, "-W") == 0) options.window = atol(value);
        else if (strcmp(argument, "-C") == 0) options.clients = atol(value);
        else if (strcmp(argument, "-s") == 0) options.socket_path = value;
        else if (strcmp(argument, "-u") == 0) options.url = value;
        else usage();
    }
    if (strcmp(mode, "syscall") == 0) {
        if (index < argc) usage();
        if (options.count < 1) options.count = 200000;
        mode_syscall(&options);
        return 0;
    }
    if (index >= argc) usage();
    options.argv = argv + index;

    if (strcmp(mode, "roundtrip") == 0) {
        if (options.count < 0) options.count = 10000;
        mode_roundtrip(&options);
    } else if (strcmp(mode, "throughput") == 0) {
        if (options.count < 0) options.count = 200000;
        mode_throughput(&options);
    } else if (strcmp(mode, "startup") == 0) {
        mode_startup(&options);
    } else if (strcmp(mode, "rss") == 0) {
        if (options.count < 0) options.count = 100;
        mode_rss(&options);
    } else if (strcmp(mode, "cycles") == 0) {
        if (options.count < 0) options.count = 10000;
        if (options.window < 1) options.window = 1;
        mode_cycles(&options);
    } else if (strcmp(mode, "frontend-cycles") == 0) {
        if (options.count < 0) options.count = 10000;
        mode_frontend_cycles(&options);
    } else if (strcmp(mode, "daemon") == 0) {
        if (options.count < 0) options.count = 100;
        if (options.clients < 1) options.clients = 200;
        mode_daemon(&options);
    } else if (strcmp(mode, "open-dialogs") == 0) {
        if (options.count < 0) options.count = 10000;
        mode_open_dialogs(&options);
    } else {
        usage();
    }
    return 0;
}
