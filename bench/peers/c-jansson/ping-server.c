/*
 * The floor: the least a JSON-RPC server over the LSP base protocol can do per message on
 * this machine. It reads frames through a large buffer, parses each body with jansson, answers
 * every request with a reply built and serialised by jansson, and writes header and body in
 * one write(2). No threads, no dispatch table, no validation beyond what jansson does.
 *
 * Wharf does more per message (JSON-RPC validation, lifecycle, a reply object that can be
 * answered from any thread), so "within 2x of this" is the target, not "equal to this".
 *
 * Requests: `shutdown` gets null, every other request `{}` (so `initialize` works too).
 * The `exit` notification or end of input ends the process.
 *
 * `--spin MICROSECONDS`: before each read that would wait, look for input without waiting
 * (`poll` with no timeout, `sched_yield` between looks) for up to that long, as Wharf does
 * (`--spin-microseconds`, SpinBeforeSleep.swift): the floor of a server that waits that way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *buffer;
static size_t capacity = 256 * 1024, start, end;

static uint64_t spin_ns;

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int fill(void) {
    if (start > 0) {
        memmove(buffer, buffer + start, end - start);
        end -= start;
        start = 0;
    }
    if (end == capacity) {
        capacity *= 2;
        buffer = realloc(buffer, capacity + 1);
        if (!buffer) abort();
    }
    if (spin_ns > 0) {
        struct pollfd input = {.fd = 0, .events = POLLIN};
        uint64_t until = now_ns() + spin_ns;
        while (poll(&input, 1, 0) == 0 && now_ns() < until) sched_yield();
    }
    for (;;) {
        ssize_t count = read(0, buffer + end, capacity - end);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        end += (size_t)count;
        buffer[end] = 0; /* so strcasestr stops at the end of what was read */
        return 1;
    }
}

static void write_all(const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(1, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            exit(1);
        }
        bytes += written;
        length -= (size_t)written;
    }
}

static void answer(json_t *request) {
    json_t *id = json_object_get(request, "id");
    json_t *method = json_object_get(request, "method");
    if (!json_is_string(method)) return;
    if (!id) {
        if (strcmp(json_string_value(method), "exit") == 0) exit(0);
        return;
    }
    int is_shutdown = strcmp(json_string_value(method), "shutdown") == 0;
    json_t *reply = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", is_shutdown ? json_null() : json_object());
    char *body = json_dumps(reply, JSON_COMPACT);
    json_decref(reply);
    size_t body_length = strlen(body);
    char *frame = malloc(body_length + 40);
    int header_length = sprintf(frame, "Content-Length: %zu\r\n\r\n", body_length);
    memcpy(frame + header_length, body, body_length);
    write_all(frame, (size_t)header_length + body_length);
    free(frame);
    free(body);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--spin") == 0) {
        spin_ns = strtoull(argv[2], NULL, 10) * 1000u;
    } else if (argc != 1) {
        fprintf(stderr, "usage: ping-server [--spin MICROSECONDS]\n");
        return 2;
    }
    buffer = malloc(capacity + 1);
    buffer[0] = 0;
    for (;;) {
        char *begin = buffer + start;
        size_t available = end - start;
        char *terminator = available >= 4 ? memmem(begin, available, "\r\n\r\n", 4) : NULL;
        if (terminator) {
            char *header = strcasestr(begin, "content-length:");
            size_t header_length = (size_t)(terminator - begin) + 4;
            if (!header || header > terminator) {
                start += header_length; /* no length: skip the block */
                continue;
            }
            size_t body_length = strtoul(header + 15, NULL, 10);
            if (available >= header_length + body_length) {
                json_error_t error;
                json_t *request = json_loadb(begin + header_length, body_length, 0, &error);
                start += header_length + body_length;
                if (request) {
                    answer(request);
                    json_decref(request);
                }
                continue;
            }
        }
        if (!fill()) return 0;
    }
}
