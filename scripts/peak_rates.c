/* Peak multiply-add rates of this CPU's 512-bit instructions, for reading
 * the kernel numbers in docs/benchmarks/ against what the core can do.
 *
 *     clang -O2 scripts/peak_rates.c -o /tmp/peak_rates && /tmp/peak_rates
 *
 * Each line times 16 independent accumulator chains (enough to hide any
 * latency: the rate is the issue rate) of one instruction and prints
 * instructions per nanosecond and multiply-adds per nanosecond (GMAC/s):
 * vfmadd231ps (16 f32 products), vdpbf16ps (32 bf16 products into f32)
 * and vpdpbusd (64 u8 x i8 products into i32). An instruction the CPU lacks
 * is skipped. Timing is for reading; a busy or throttled machine reads
 * lower. gcc -O2 builds it too.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define ITERATIONS 20000000L
#define CHAINS 16

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void report(const char *name, double elapsed, int products) {
  double instructions = (double)ITERATIONS * CHAINS;
  printf("%-12s %6.2f instr/ns %7.1f GMAC/s\n", name,
         instructions / elapsed * 1e-9, instructions * products / elapsed * 1e-9);
}

/* CHAINS named accumulators (an array would live in memory), each updated
 * by STEP once per iteration and kept live by an empty asm. */
#define KEEP(v) __asm__ volatile("" : "+v"(v))
#define EACH(X)                                                                \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)   \
      X(14) X(15)
#define DECLARE(i) TYPE a##i = INIT(i);
#define UPDATE(i) a##i = STEP(a##i);
#define LIVE(i) KEEP(a##i);
#define TIME(name, products)                                                   \
  EACH(DECLARE)                                                                \
  double start = seconds();                                                    \
  for (long i = 0; i < ITERATIONS; ++i) {                                      \
    EACH(UPDATE)                                                               \
    EACH(LIVE)                                                                 \
  }                                                                            \
  report(name, seconds() - start, products);

__attribute__((target("avx512f"))) static void fma_ps(void) {
  __m512 x = _mm512_set1_ps(1.0f), y = _mm512_set1_ps(0.0f);
#define TYPE __m512
#define INIT(i) _mm512_set1_ps((float)(i))
#define STEP(a) _mm512_fmadd_ps(a, x, y)
  TIME("vfmadd231ps", 16)
#undef TYPE
#undef INIT
#undef STEP
}

__attribute__((target("avx512f,avx512bf16"))) static void dp_bf16(void) {
  __m512bh x = (__m512bh)_mm512_set1_epi32(0);
#define TYPE __m512
#define INIT(i) _mm512_set1_ps((float)(i))
#define STEP(a) _mm512_dpbf16_ps(a, x, x)
  TIME("vdpbf16ps", 32)
#undef TYPE
#undef INIT
#undef STEP
}

__attribute__((target("avx512f,avx512vnni"))) static void dp_busd(void) {
  __m512i x = _mm512_set1_epi32(0x01010101);
#define TYPE __m512i
#define INIT(i) _mm512_set1_epi32(i)
#define STEP(a) _mm512_dpbusd_epi32(a, x, x)
  TIME("vpdpbusd", 64)
#undef TYPE
#undef INIT
#undef STEP
}

int main(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    printf("no AVX-512: nothing to measure\n");
    return 0;
  }
  fma_ps();
  if (__builtin_cpu_supports("avx512bf16"))
    dp_bf16();
  if (__builtin_cpu_supports("avx512vnni"))
    dp_busd();
  return 0;
}
