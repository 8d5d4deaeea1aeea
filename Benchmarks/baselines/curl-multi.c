/*
 * curl-multi: the raw-libcurl baseline for Courier's benchmarks (Benchmarks/README.md).
 *
 * The same interface and output as courier-bench:
 *
 *   curl-multi get URL N C        N GETs, C in flight, bodies counted and dropped
 *   curl-multi download URL FILE  one GET written to FILE
 *   curl-multi upload URL FILE    one PUT streamed from FILE
 *
 * prints `ok requests=R bytes=B errors=0 wall=S` and exits 0, or `fail requests=R bytes=B
 * errors=E wall=S` and the first error on the next line, and exits 1 (2 for a usage error). S is
 * the seconds from the first request started to the last one finished. A transfer error or an
 * HTTP status of 400 or more counts as an error.
 *
 * Environment: BENCH_H2=1 (https with HTTP/2: CURL_HTTP_VERSION_2TLS and CURLOPT_PIPEWAIT, so the
 * C transfers share one multiplexed connection), BENCH_INSECURE=1 (no certificate or host name
 * checks), BENCH_BUFFERSIZE=BYTES (CURLOPT_BUFFERSIZE; libcurl's 16 KiB otherwise),
 * BENCH_SAME_WORK=1 (get: the work a library does for its user, below; otherwise bodies are only
 * counted and headers dropped).
 *
 * Written as a careful C programmer would drive libcurl: one multi handle, C easy handles set up
 * once and re-added as each transfer ends (connections kept alive in the multi handle's pool), a
 * write callback that only counts, curl_multi_poll for waiting.
 *
 * BENCH_SAME_WORK=1 is the same loop doing what Courier must do for each response (issue 23), so
 * that Courier can be held to it: the request headers Courier sends by default (its Accept-Encoding
 * and User-Agent lines, through CURLOPT_HTTPHEADER as Courier gives them), every response header
 * line copied into a buffer of that response (CURLOPT_HEADERFUNCTION), each body kept whole in
 * memory in a buffer sized from the Content-Length when the header block ends (doubled when it is
 * unknown or short), and a handle's two buffers reused for its next response, as a pool would: no
 * malloc per response once they are big enough. The buffers are emptied, not freed, when a
 * transfer ends, the point at which a library hands the response to its user.
 *
 * Build: gcc -O2 -Wall -Wextra -o curl-multi curl-multi.c -lcurl
 */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct bench {
    long requests;
    long errors;
    curl_off_t bytes;
    char first_error[CURL_ERROR_SIZE + 64];
};

struct options {
    int h2;
    int insecure;
    long buffer_size; /* 0: libcurl's default */
    int same_work;
};

/* Courier's default request header lines (Sources/Courier/Request/HTTPRequest+Attempt.swift and
 * HTTPRequest+ClassSettings.swift: allowCompressedResponse on, the built-in User-Agent). */
static const char *const courier_header_lines[] = {
    "Accept-Encoding: gzip, deflate",
    "User-Agent: Courier/0.1.0 (Linux)",
};

/* A growing byte buffer that keeps its memory from one response to the next. */
struct buffer {
    char *data;
    size_t length;
    size_t capacity;
};

/* Room for `needed` bytes in all: at least doubled, so unknown lengths cost log(n) reallocs. */
static int reserve(struct buffer *b, size_t needed) {
    if (needed <= b->capacity) return 1;
    size_t capacity = b->capacity * 2;
    if (capacity < needed) capacity = needed;
    char *grown = realloc(b->data, capacity);
    if (grown == NULL) return 0;
    b->data = grown;
    b->capacity = capacity;
    return 1;
}

static int append(struct buffer *b, const char *data, size_t n) {
    if (!reserve(b, b->length + n)) return 0;
    memcpy(b->data + b->length, data, n);
    b->length += n;
    return 1;
}

/* One response kept for its user (BENCH_SAME_WORK=1): its header lines and its whole body. */
struct response {
    CURL *easy;
    curl_off_t *total;
    struct buffer headers;
    struct buffer body;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int env_is_one(const char *name) {
    const char *value = getenv(name);
    return value != NULL && strcmp(value, "1") == 0;
}

static void die(const char *what) {
    fprintf(stderr, "curl-multi: %s\n", what);
    exit(2);
}

static void report(const struct bench *b, double wall) {
    printf("%s requests=%ld bytes=%" CURL_FORMAT_CURL_OFF_T " errors=%ld wall=%.3f\n",
           b->errors == 0 ? "ok" : "fail", b->requests, b->bytes, b->errors, wall);
    if (b->errors > 0) printf("%s\n", b->first_error);
}

static void note_error(struct bench *b, const char *message) {
    b->errors++;
    if (b->first_error[0] == '\0') snprintf(b->first_error, sizeof b->first_error, "%s", message);
}

/* Counts what arrives; the body goes nowhere. */
static size_t count_body(char *data, size_t size, size_t nmemb, void *userdata) {
    (void)data;
    *(curl_off_t *)userdata += (curl_off_t)(size * nmemb);
    return size * nmemb;
}

/* Copies each header line into the response's header buffer. A status line starts a new block
 * (after a 100 Continue, say), which replaces the one before; the blank line that ends a block
 * sizes the body buffer from the Content-Length. 0 (a write error) when memory runs out. */
static size_t keep_header(char *data, size_t size, size_t nmemb, void *userdata) {
    struct response *r = userdata;
    size_t n = size * nmemb;
    if (n > 5 && memcmp(data, "HTTP/", 5) == 0) r->headers.length = 0;
    if (!append(&r->headers, data, n)) return 0;
    if (n <= 2 && (data[0] == '\r' || data[0] == '\n')) {
        curl_off_t expected = -1;
        curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);
        if (expected > 0 && !reserve(&r->body, (size_t)expected)) return 0;
    }
    return n;
}

/* Keeps the body whole; 0 (a write error) when memory runs out. */
static size_t keep_body(char *data, size_t size, size_t nmemb, void *userdata) {
    struct response *r = userdata;
    size_t n = size * nmemb;
    if (!append(&r->body, data, n)) return 0;
    *r->total += (curl_off_t)n;
    return n;
}

/* The body to a file: a short write makes libcurl fail the transfer (CURLE_WRITE_ERROR). */
static size_t write_file(char *data, size_t size, size_t nmemb, void *userdata) {
    return fwrite(data, size, nmemb, (FILE *)userdata);
}

/* The request body from a file; 0 at its end. A read error aborts the transfer. */
static size_t read_file(char *buffer, size_t size, size_t nmemb, void *userdata) {
    FILE *file = userdata;
    size_t n = fread(buffer, size, nmemb, file);
    if (n == 0 && ferror(file)) return CURL_READFUNC_ABORT;
    return n;
}

/* Options every transfer gets. */
static void set_common(CURL *easy, const char *url, const struct options *o, char *errbuf,
                       struct curl_slist *headers) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
    if (o->buffer_size > 0 && curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, o->buffer_size) != CURLE_OK)
        die("libcurl refused BENCH_BUFFERSIZE");
    if (o->h2) {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    } else {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    }
    if (o->insecure) {
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (headers != NULL) curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
}

/* Records how a finished transfer went. */
static void finish(struct bench *b, CURL *easy, CURLcode result, const char *errbuf) {
    char message[CURL_ERROR_SIZE + 64];
    b->requests++;
    if (result != CURLE_OK) {
        snprintf(message, sizeof message, "%s (curl code %d)", errbuf[0] ? errbuf : curl_easy_strerror(result),
                 (int)result);
        note_error(b, message);
        return;
    }
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 400) {
        snprintf(message, sizeof message, "HTTP %ld", status);
        note_error(b, message);
    }
}

/* Runs the multi handle until `active` transfers are done; `on_done` may re-add a handle. */
typedef int (*done_fn)(CURL *easy, CURLcode result, void *context);

static void drive(CURLM *multi, done_fn on_done, void *context) {
    int running = 1;
    while (running) {
        CURLMcode mc = curl_multi_perform(multi, &running);
        if (mc != CURLM_OK) die(curl_multi_strerror(mc));
        int queued;
        CURLMsg *msg;
        int readded = 0;
        while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *easy = msg->easy_handle;
            CURLcode result = msg->data.result;
            curl_multi_remove_handle(multi, easy);
            readded |= on_done(easy, result, context);
        }
        /* A handle added again must be driven now, not after a poll's timeout. */
        if (readded) {
            running = 1;
            continue;
        }
        if (running) {
            mc = curl_multi_poll(multi, NULL, 0, 1000, NULL);
            if (mc != CURLM_OK) die(curl_multi_strerror(mc));
        }
    }
}

/* ---- get URL N C ---- */

struct get_run {
    struct bench *bench;
    CURLM *multi;
    const char *url;
    long count;
    long started;
};

/* What each easy handle of a get run carries (its CURLOPT_PRIVATE). */
struct get_slot {
    char errbuf[CURL_ERROR_SIZE];
    struct response response; /* BENCH_SAME_WORK=1 only */
};

static int get_done(CURL *easy, CURLcode result, void *context) {
    struct get_run *run = context;
    struct get_slot *slot;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
    finish(run->bench, easy, result, slot->errbuf);
    /* The user has had the response: the handle's buffers are emptied for its next one. */
    slot->response.headers.length = 0;
    slot->response.body.length = 0;
    if (run->started >= run->count) return 0;
    slot->errbuf[0] = '\0';
    curl_easy_setopt(easy, CURLOPT_URL, run->url);
    run->started++;
    curl_multi_add_handle(run->multi, easy);
    return 1;
}

static int run_get(const char *url, long count, long in_flight, const struct options *o) {
    struct bench bench = {0};
    if (in_flight > count) in_flight = count;
    CURLM *multi = curl_multi_init();
    if (multi == NULL) die("curl_multi_init failed");
    CURL **handles = calloc((size_t)in_flight, sizeof *handles);
    struct get_slot *slots = calloc((size_t)in_flight, sizeof *slots);
    if (handles == NULL || slots == NULL) die("out of memory");
    struct curl_slist *headers = NULL;
    if (o->same_work) {
        for (size_t i = 0; i < sizeof courier_header_lines / sizeof *courier_header_lines; i++) {
            headers = curl_slist_append(headers, courier_header_lines[i]);
            if (headers == NULL) die("out of memory");
        }
    }
    for (long i = 0; i < in_flight; i++) {
        CURL *easy = curl_easy_init();
        if (easy == NULL) die("curl_easy_init failed");
        set_common(easy, url, o, slots[i].errbuf, headers);
        if (o->same_work) {
            slots[i].response.easy = easy;
            slots[i].response.total = &bench.bytes;
            curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, keep_header);
            curl_easy_setopt(easy, CURLOPT_HEADERDATA, &slots[i].response);
            curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, keep_body);
            curl_easy_setopt(easy, CURLOPT_WRITEDATA, &slots[i].response);
        } else {
            curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body);
            curl_easy_setopt(easy, CURLOPT_WRITEDATA, &bench.bytes);
        }
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &slots[i]);
        handles[i] = easy;
    }
    struct get_run run = {&bench, multi, url, count, 0};

    double start = now();
    for (long i = 0; i < in_flight; i++) {
        run.started++;
        curl_multi_add_handle(multi, handles[i]);
    }
    drive(multi, get_done, &run);
    double wall = now() - start;

    for (long i = 0; i < in_flight; i++) {
        curl_easy_cleanup(handles[i]);
        free(slots[i].response.headers.data);
        free(slots[i].response.body.data);
    }
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    free(handles);
    free(slots);
    report(&bench, wall);
    return bench.errors == 0 ? 0 : 1;
}

/* ---- download URL FILE, upload URL FILE ---- */

struct single_run {
    struct bench *bench;
    char *errbuf;
};

static int single_done(CURL *easy, CURLcode result, void *context) {
    struct single_run *run = context;
    finish(run->bench, easy, result, run->errbuf);
    return 0;
}

/* One transfer through a multi handle, like the others. */
static double run_single(CURL *easy, struct bench *bench, char *errbuf) {
    CURLM *multi = curl_multi_init();
    if (multi == NULL) die("curl_multi_init failed");
    struct single_run run = {bench, errbuf};
    double start = now();
    curl_multi_add_handle(multi, easy);
    drive(multi, single_done, &run);
    double wall = now() - start;
    curl_multi_cleanup(multi);
    return wall;
}

static int run_download(const char *url, const char *path, const struct options *o) {
    struct bench bench = {0};
    char errbuf[CURL_ERROR_SIZE] = "";
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        fprintf(stderr, "curl-multi: %s: %s\n", path, strerror(errno));
        return 2;
    }
    CURL *easy = curl_easy_init();
    if (easy == NULL) die("curl_easy_init failed");
    set_common(easy, url, o, errbuf, NULL);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_file);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, file);
    double wall = run_single(easy, &bench, errbuf);
    if (fclose(file) != 0) note_error(&bench, strerror(errno));
    curl_off_t received = 0;
    curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &received);
    bench.bytes = received;
    curl_easy_cleanup(easy);
    report(&bench, wall);
    return bench.errors == 0 ? 0 : 1;
}

static int run_upload(const char *url, const char *path, const struct options *o) {
    struct bench bench = {0};
    char errbuf[CURL_ERROR_SIZE] = "";
    FILE *file = fopen(path, "rb");
    struct stat st;
    if (file == NULL || fstat(fileno(file), &st) != 0) {
        fprintf(stderr, "curl-multi: %s: %s\n", path, strerror(errno));
        return 2;
    }
    CURL *easy = curl_easy_init();
    if (easy == NULL) die("curl_easy_init failed");
    set_common(easy, url, o, errbuf, NULL);
    curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L); /* PUT */
    curl_easy_setopt(easy, CURLOPT_READFUNCTION, read_file);
    curl_easy_setopt(easy, CURLOPT_READDATA, file);
    curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)st.st_size);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body); /* nginx's reply: dropped */
    curl_off_t reply = 0;
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &reply);
    double wall = run_single(easy, &bench, errbuf);
    curl_off_t sent = 0;
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &sent);
    bench.bytes = sent;
    curl_easy_cleanup(easy);
    fclose(file);
    report(&bench, wall);
    return bench.errors == 0 ? 0 : 1;
}

static long parse_positive(const char *text, const char *what) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value <= 0) {
        fprintf(stderr, "curl-multi: %s must be a positive number, not '%s'\n", what, text);
        exit(2);
    }
    return value;
}

static void usage(void) {
    fprintf(stderr,
            "usage: curl-multi get URL N C\n"
            "       curl-multi download URL FILE\n"
            "       curl-multi upload URL FILE\n"
            "environment: BENCH_H2=1, BENCH_INSECURE=1, BENCH_BUFFERSIZE=BYTES, BENCH_SAME_WORK=1\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    struct options o = {env_is_one("BENCH_H2"), env_is_one("BENCH_INSECURE"), 0, env_is_one("BENCH_SAME_WORK")};
    const char *buffer = getenv("BENCH_BUFFERSIZE");
    if (buffer != NULL && *buffer != '\0') o.buffer_size = parse_positive(buffer, "BENCH_BUFFERSIZE");

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) die("curl_global_init failed");
    int status;
    if (strcmp(argv[1], "get") == 0 && argc == 5) {
        status = run_get(argv[2], parse_positive(argv[3], "N"), parse_positive(argv[4], "C"), &o);
    } else if (strcmp(argv[1], "download") == 0 && argc == 4) {
        status = run_download(argv[2], argv[3], &o);
    } else if (strcmp(argv[1], "upload") == 0 && argc == 4) {
        status = run_upload(argv[2], argv[3], &o);
    } else {
        usage();
        return 2;
    }
    curl_global_cleanup();
    return status;
}
