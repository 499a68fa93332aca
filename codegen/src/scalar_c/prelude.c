/* pllvm scalar-lane C: helpers shared by every kernel of the translation unit.
 * Integers of N <= 64 bits travel as uint64_t holding the zero-extended value;
 * every helper is free of C undefined behaviour for every input (LLVM's poison
 * cases return some value instead, docs/native.md). */
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>

/* Active lanes that disagree on a branch: the program is not one the C route
 * can run with one program counter (a divergent branch is left); the process
 * exits with this code, which the harness reports. */
#define PLLVM_DIVERGED_EXIT 86
static void pllvm_diverged(void) { _Exit(PLLVM_DIVERGED_EXIT); }

typedef void (*pllvm_chunk_fn)(uint64_t base, uint64_t count, const uint64_t *args,
                               uint64_t n, uint64_t *ret, uint8_t *const *globals);
struct pllvm_kernel {
    const char *name;
    uint64_t width;
    pllvm_chunk_fn chunk;
};

/* The low w bits (1 <= w <= 64). */
static inline uint64_t pllvm_mask(uint64_t x, unsigned w) {
    return w >= 64 ? x : (x & ((UINT64_C(1) << w) - 1));
}
/* Sign extension of the low w bits (conversions of out-of-range values to
 * int64_t are modulo 2^64 in GCC, and >> of a negative value is arithmetic). */
static inline int64_t pllvm_sx(uint64_t x, unsigned w) {
    return w >= 64 ? (int64_t)x : ((int64_t)(x << (64 - w))) >> (64 - w);
}
static inline uint64_t pllvm_udiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
static inline uint64_t pllvm_urem(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }
static inline uint64_t pllvm_sdiv(uint64_t a, uint64_t b, unsigned w) {
    int64_t x = pllvm_sx(a, w), y = pllvm_sx(b, w);
    if (y == 0 || (x == INT64_MIN && y == -1)) return 0;
    return pllvm_mask((uint64_t)(x / y), w);
}
static inline uint64_t pllvm_srem(uint64_t a, uint64_t b, unsigned w) {
    int64_t x = pllvm_sx(a, w), y = pllvm_sx(b, w);
    if (y == 0 || y == -1) return 0;
    return pllvm_mask((uint64_t)(x % y), w);
}
/* Shifts by s >= w are poison in LLVM: the amount is reduced modulo 64, so the
 * C shift is always defined, and the lane gets some value. */
static inline uint64_t pllvm_shl(uint64_t a, uint64_t s, unsigned w) {
    return pllvm_mask(a << (s & 63), w);
}
static inline uint64_t pllvm_lshr(uint64_t a, uint64_t s, unsigned w) {
    return pllvm_mask(a >> (s & 63), w);
}
static inline uint64_t pllvm_ashr(uint64_t a, uint64_t s, unsigned w) {
    return pllvm_mask((uint64_t)(pllvm_sx(a, w) >> (s & 63)), w);
}
static inline float pllvm_f32(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
static inline double pllvm_f64(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }
static inline uint64_t pllvm_bits32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
/* An arithmetic NaN is the preferred NaN (positive, quiet, payload 0), as pllvm's
   float operations make it (semantics/src/ops/float.rs); x86 would give its
   negative default NaN, which a bitcast to an integer shows. */
static inline float pllvm_canon_f32(float f) { if (f != f) { uint32_t b = 0x7fc00000u; memcpy(&f, &b, 4); } return f; }
static inline double pllvm_canon_f64(double f) { if (f != f) { uint64_t b = UINT64_C(0x7ff8000000000000); memcpy(&f, &b, 8); } return f; }
static inline uint64_t pllvm_bits64(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
/* fptosi / fptoui: an out-of-range or NaN operand is poison in LLVM and C UB;
 * here it gives 0 (what pllvm's freeze picks). */
static inline uint64_t pllvm_fptosi(double x, unsigned w) {
    double t = trunc(x);
    double hi = ldexp(1.0, (int)w - 1);
    if (!(t >= -hi && t < hi)) return 0;
    return pllvm_mask((uint64_t)(int64_t)t, w);
}
static inline uint64_t pllvm_fptoui(double x, unsigned w) {
    double t = trunc(x);
    double hi = ldexp(1.0, (int)w);
    if (!(t >= 0.0 && t < hi)) return 0;
    return pllvm_mask((uint64_t)t, w);
}
/* minnum / maxnum with -0 < +0 and a NaN operand yielding the other one. */
static inline double pllvm_minmax(double x, double y, int want_max) {
    if (isnan(x)) return y;
    if (isnan(y)) return x;
    if (x == y) {
        int x_neg = signbit(x) != 0, y_neg = signbit(y) != 0;
        if (want_max) return x_neg ? y : x;
        return x_neg ? x : y;
    }
    return (want_max ? x > y : x < y) ? x : y;
}
static inline double pllvm_minmax_nan(double x, double y, int want_max) {
    if (isnan(x) || isnan(y)) return NAN;
    return pllvm_minmax(x, y, want_max);
}
static inline uint64_t pllvm_popcount(uint64_t x) { return (uint64_t)__builtin_popcountll(x); }
static inline uint64_t pllvm_ctlz(uint64_t x, unsigned w) {
    return x == 0 ? w : (uint64_t)(__builtin_clzll(x) - (64 - w));
}
static inline uint64_t pllvm_cttz(uint64_t x, unsigned w) {
    return x == 0 ? w : (uint64_t)__builtin_ctzll(x);
}
/* Addresses are 64-bit words; the casts are GCC's implementation-defined ones. */
static inline void *pllvm_ptr(uint64_t a) { return (void *)(uintptr_t)a; }
static inline uint64_t pllvm_addr(const void *p) { return (uint64_t)(uintptr_t)p; }
