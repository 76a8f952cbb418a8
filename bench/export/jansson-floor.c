/*
 * jansson-floor: how long jansson alone takes to parse the message of a base64 export.
 *
 *   jansson-floor BASE64_TEXT_FILE      prints "WALL_MS CPU_MS" of one json_loadb
 *
 * Jansson is the only JSON parser on Wharf's message path, so the time it needs to read the
 * `presentExporter` request that carries a document as `{"base64": …}` is a floor no Wharf
 * export of that document can go below: everything Wharf does beyond it (framing, turning the
 * tree into Swift values, decoding, writing, fsync) comes on top. bench/export/run.sh shows it
 * next to `base64 -d` and the real export.
 *
 * The message is built in memory before the clock starts, byte for byte the request body
 * bench/driver/wharf-export.sh makes the load driver send (newlines dropped from the text, as
 * `tr -d '\n'` does there), and parsed with the flags Wharf uses (Sources/WharfJSON). Only
 * json_loadb is timed: not reading the file, not freeing the tree.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double milliseconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: jansson-floor BASE64_TEXT_FILE\n", stderr);
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 1;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);

    static const char head[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"presentExporter\",\"params\":"
        "{\"documents\":[{\"filename\":\"document\",\"writableContentTypes\":[\"public.data\"],"
        "\"contents\":{\"base64\":\"";
    static const char tail[] = "\"}}],\"contentType\":\"public.data\"}}";
    size_t capacity = sizeof head + (size_t)size + sizeof tail;
    char *message = malloc(capacity);
    if (!message) {
        fputs("out of memory\n", stderr);
        return 1;
    }
    size_t length = sizeof head - 1;
    memcpy(message, head, length);
    if (fread(message + length, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(file);
    /* The text as the driver sends it: without newlines. */
    char *end = message + length + size, *out = message + length;
    for (char *in = out; in < end; in++) {
        if (*in != '\n') *out++ = *in;
    }
    length = (size_t)(out - message);
    memcpy(message + length, tail, sizeof tail - 1);
    length += sizeof tail - 1;

    json_error_t error;
    double wall = milliseconds(CLOCK_MONOTONIC), cpu = milliseconds(CLOCK_PROCESS_CPUTIME_ID);
    json_t *root = json_loadb(message, length, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
    wall = milliseconds(CLOCK_MONOTONIC) - wall;
    cpu = milliseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    if (!root) {
        fprintf(stderr, "json_loadb: %s at line %d, column %d\n", error.text, error.line, error.column);
        return 1;
    }
    json_decref(root);
    free(message);
    printf("%.0f %.0f\n", wall, cpu);
    return 0;
}
