/* pllvm native runner (protocol in docs/native.md).
 *
 *   ./prog IN OUT
 *
 * Reads run sections from IN; for each, forks a child that places every global
 * against a PROT_NONE guard page, resolves the argument tokens, calls the
 * kernel's chunk function for base = 0, W, 2W, ... and sends its results back
 * through a pipe; the parent writes `result K ok` and the results, or `signal`,
 * `timeout` or `exit`, to OUT. A crash of one kernel does not stop the batch. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*pllvm_chunk_fn)(uint64_t base, uint64_t count, const uint64_t *args,
                               uint64_t n, uint64_t *ret, uint8_t *const *globals);
struct pllvm_kernel {
    const char *name;
    uint64_t width;
    pllvm_chunk_fn chunk;
};
extern const struct pllvm_kernel pllvm_kernels[];
extern const uint64_t pllvm_kernel_count;

struct global_in { uint64_t size, align; uint8_t *bytes; /* NULL: all zero */ };
enum { TOK_BITS, TOK_GLOBAL, TOK_NULL, TOK_GUARD };
struct token { int kind; uint64_t a, b; };

static FILE *in_file;
static char word[1 << 16];

static void die(const char *why, const char *what) {
    fprintf(stderr, "pllvm runner: %s%s%s\n", why, what ? ": " : "", what ? what : "");
    exit(2);
}
static int next_word(void) { return fscanf(in_file, "%65535s", word) == 1; }
static void expect(const char *w) {
    if (!next_word() || strcmp(word, w) != 0) die("expected", w);
}
static uint64_t next_u64(void) {
    char *end;
    if (!next_word()) die("unexpected end of input", 0);
    errno = 0;
    uint64_t v = strtoull(word, &end, 10);
    if (*end || errno) die("not a number", word);
    return v;
}
static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* A global's bytes: '-' (all zero) or 2 hex digits per byte, in chunks of any
 * length separated by white space, `size` bytes in all. */
static uint8_t *read_bytes(uint64_t size) {
    if (!next_word()) die("unexpected end of input in a global", 0);
    if (strcmp(word, "-") == 0) return NULL;
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes) die("out of memory", 0);
    uint64_t at = 0;
    for (;;) {
        size_t len = strlen(word);
        if (len % 2) die("odd number of hex digits", word);
        for (size_t k = 0; k < len; k += 2) {
            int hi = hex_digit(word[k]), lo = hex_digit(word[k + 1]);
            if (hi < 0 || lo < 0) die("not hex", word);
            if (at >= size) die("more bytes than the global's size", 0);
            bytes[at++] = (uint8_t)(hi * 16 + lo);
        }
        if (at == size) return bytes;
        if (!next_word()) die("unexpected end of input in a global", 0);
    }
}
static struct token read_token(void) {
    struct token t = { TOK_NULL, 0, 0 };
    char *end;
    if (!next_word()) die("unexpected end of input in an argument", 0);
    if (strcmp(word, "null") == 0) return t;
    if (strcmp(word, "guard") == 0) { t.kind = TOK_GUARD; return t; }
    if (word[0] == 'b') {
        t.kind = TOK_BITS;
        errno = 0;
        t.a = strtoull(word + 1, &end, 16);
        if (*end || errno || !word[1]) die("bad bits token", word);
        return t;
    }
    if (word[0] == 'g') {
        t.kind = TOK_GLOBAL;
        errno = 0;
        t.a = strtoull(word + 1, &end, 10);
        if (*end != '+' || errno) die("bad global token", word);
        t.b = strtoull(end + 1, &end, 10);
        if (*end || errno) die("bad global token", word);
        return t;
    }
    die("unknown argument token", word);
    return t;
}

static const char *signal_name(int s) {
    static char buf[32];
    switch (s) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGTERM: return "SIGTERM";
    default: snprintf(buf, sizeof buf, "SIG%d", s); return buf;
    }
}

/* The child: place, fill, run, report on `fd`. Never returns. */
static void child(int fd, uint64_t kernel, uint64_t n, uint64_t g_count,
                  struct global_in *globals, uint64_t p_count, struct token *tokens,
                  unsigned timeout) {
    alarm(timeout);
    long page = sysconf(_SC_PAGESIZE);
    uint8_t **where = calloc(g_count ? g_count : 1, sizeof *where);
    uint64_t *args = calloc(p_count * n ? p_count * n : 1, sizeof *args);
    uint64_t *ret = calloc(n ? n : 1, sizeof *ret);
    if (!where || !args || !ret) _exit(3);
    /* One page nobody may touch, for `guard` tokens. */
    uint8_t *guard = mmap(0, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED) _exit(3);
    for (uint64_t g = 0; g < g_count; g++) {
        uint64_t size = globals[g].size, align = globals[g].align ? globals[g].align : 1;
        uint64_t data_pages = (size + align + (uint64_t)page - 1) / (uint64_t)page;
        size_t total = (size_t)((data_pages + 1) * (uint64_t)page);
        uint8_t *region = mmap(0, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) _exit(3);
        uint8_t *fence = region + data_pages * (uint64_t)page;
        if (mprotect(fence, (size_t)page, PROT_NONE) != 0) _exit(3);
        /* The last byte abuts the guard page; the start rounded down to the
         * alignment (so up to align-1 bytes of slack may follow). */
        uintptr_t start = ((uintptr_t)fence - (uintptr_t)size) & ~(uintptr_t)(align - 1);
        where[g] = (uint8_t *)start;
        if (globals[g].bytes) memcpy(where[g], globals[g].bytes, (size_t)size);
    }
    for (uint64_t k = 0; k < p_count * n; k++) {
        struct token t = tokens[k];
        switch (t.kind) {
        case TOK_BITS: args[k] = t.a; break;
        case TOK_NULL: args[k] = 0; break;
        case TOK_GUARD: args[k] = (uint64_t)(uintptr_t)(guard + page / 2); break;
        default:
            if (t.a >= g_count) _exit(4);
            args[k] = (uint64_t)(uintptr_t)where[t.a] + t.b;
        }
    }
    const struct pllvm_kernel *kern = &pllvm_kernels[kernel];
    uint64_t width = kern->width ? kern->width : 1;
    for (uint64_t base = 0; base < n; base += width) {
        uint64_t count = n - base < width ? n - base : width;
        kern->chunk(base, count, args, n, ret, where);
    }
    FILE *out = fdopen(fd, "w");
    if (!out) _exit(3);
    for (uint64_t g = 0; g < g_count; g++)
        fprintf(out, "base %llu %llx\n", (unsigned long long)g,
                (unsigned long long)(uintptr_t)where[g]);
    fputs("ret", out);
    for (uint64_t t = 0; t < n; t++) fprintf(out, " %llx", (unsigned long long)ret[t]);
    fputc('\n', out);
    for (uint64_t g = 0; g < g_count; g++) {
        fprintf(out, "global %llu ", (unsigned long long)g);
        for (uint64_t k = 0; k < globals[g].size; k++) fprintf(out, "%02x", where[g][k]);
        if (globals[g].size == 0) fputc('-', out);
        fputc('\n', out);
    }
    if (fclose(out) != 0) _exit(3);
    _exit(0);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    in_file = fopen(argv[1], "r");
    if (!in_file) die("cannot open input", argv[1]);
    FILE *out = fopen(argv[2], "w");
    if (!out) die("cannot open output", argv[2]);
    expect("pllvm-native-input");
    if (next_u64() != 1) die("unknown input version", 0);
    expect("timeout");
    unsigned timeout = (unsigned)next_u64();
    fputs("pllvm-native-output 1\n", out);
    while (next_word()) {
        if (strcmp(word, "run") != 0) die("expected run", word);
        uint64_t kernel = next_u64(), n = next_u64();
        if (kernel >= pllvm_kernel_count) die("no such kernel index", 0);
        expect("globals");
        uint64_t g_count = next_u64();
        struct global_in *globals = calloc(g_count ? g_count : 1, sizeof *globals);
        if (!globals) die("out of memory", 0);
        for (uint64_t g = 0; g < g_count; g++) {
            expect("global");
            globals[g].size = next_u64();
            globals[g].align = next_u64();
            globals[g].bytes = read_bytes(globals[g].size);
        }
        expect("args");
        uint64_t p_count = next_u64();
        struct token *tokens = calloc(p_count * n ? p_count * n : 1, sizeof *tokens);
        if (!tokens) die("out of memory", 0);
        for (uint64_t p = 0; p < p_count; p++) {
            expect("arg");
            for (uint64_t t = 0; t < n; t++) tokens[p * n + t] = read_token();
        }
        expect("end");
        fflush(out);
        int fds[2];
        if (pipe(fds) != 0) die("pipe failed", 0);
        pid_t pid = fork();
        if (pid < 0) die("fork failed", 0);
        if (pid == 0) {
            close(fds[0]);
            child(fds[1], kernel, n, g_count, globals, p_count, tokens, timeout);
        }
        close(fds[1]);
        size_t cap = 1 << 16, len = 0;
        char *buf = malloc(cap);
        if (!buf) die("out of memory", 0);
        for (;;) {
            if (len == cap && !(buf = realloc(buf, cap *= 2))) die("out of memory", 0);
            ssize_t got = read(fds[0], buf + len, cap - len);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            len += (size_t)got;
        }
        close(fds[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR) die("waitpid failed", 0);
        unsigned long long k = (unsigned long long)kernel;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            fprintf(out, "result %llu ok\n", k);
            fwrite(buf, 1, len, out);
        } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
            fprintf(out, "result %llu timeout\n", k);
        } else if (WIFSIGNALED(status)) {
            fprintf(out, "result %llu signal %s\n", k, signal_name(WTERMSIG(status)));
        } else {
            fprintf(out, "result %llu exit %d\n", k, WEXITSTATUS(status));
        }
        fputs("end\n", out);
        free(buf);
        for (uint64_t g = 0; g < g_count; g++) free(globals[g].bytes);
        free(globals);
        free(tokens);
    }
    if (fclose(out) != 0) die("cannot write output", argv[2]);
    return 0;
}
