/* Peak multiply-add rates of this CPU's 512-bit instructions, for reading
 * the kernel numbers in docs/benchmarks/ against what the core can do.
 *
 *     clang -O2 scripts/peak_rates.c -o /tmp/peak_rates && /tmp/peak_rates
 *
 * Each line times 24 independent accumulator chains (enough to hide any
 * latency: the rate is the issue rate) of one instruction and prints
 * instructions per nanosecond and multiply-adds per nanosecond (GMAC/s):
 * vfmadd231ps (16 f32 products), vdpbf16ps (32 bf16 products into f32),
 * vpdpbusd (64 u8 x i8 products into i32) and vfmadd231ph (32 f16
 * products, f16 sums). An instruction the CPU lacks is skipped. Timing is
 * for reading; a busy or throttled machine reads lower.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define ITERATIONS 10000000L
#define CHAINS 24

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

/* Keeps every chain live without touching memory. */
#define KEEP(v) __asm__ volatile("" : "+v"(v))
#define KEEP_ALL(a)                                                            \
  for (int c = 0; c < CHAINS; ++c)                                             \
    KEEP(a[c])

__attribute__((target("avx512f"))) static void fma_ps(void) {
  __m512 acc[CHAINS], x = _mm512_set1_ps(1.0f), y = _mm512_set1_ps(0.0f);
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = _mm512_set1_ps((float)c);
  double start = seconds();
  for (long i = 0; i < ITERATIONS; ++i) {
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], x, y);
    KEEP_ALL(acc);
  }
  report("vfmadd231ps", seconds() - start, 16);
}

__attribute__((target("avx512f,avx512bf16"))) static void dp_bf16(void) {
  __m512 acc[CHAINS];
  __m512bh x = (__m512bh)_mm512_set1_epi32(0);
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = _mm512_set1_ps((float)c);
  double start = seconds();
  for (long i = 0; i < ITERATIONS; ++i) {
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], x, x);
    KEEP_ALL(acc);
  }
  report("vdpbf16ps", seconds() - start, 32);
}

__attribute__((target("avx512f,avx512vnni"))) static void dp_busd(void) {
  __m512i acc[CHAINS], x = _mm512_set1_epi32(0x01010101);
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = _mm512_set1_epi32(c);
  double start = seconds();
  for (long i = 0; i < ITERATIONS; ++i) {
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_dpbusd_epi32(acc[c], x, x);
    KEEP_ALL(acc);
  }
  report("vpdpbusd", seconds() - start, 64);
}

__attribute__((target("avx512f,avx512fp16"))) static void fma_ph(void) {
  __m512h acc[CHAINS], x = _mm512_set1_ph((_Float16)1.0f),
                       y = _mm512_set1_ph((_Float16)0.0f);
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = _mm512_set1_ph((_Float16)c);
  double start = seconds();
  for (long i = 0; i < ITERATIONS; ++i) {
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_fmadd_ph(acc[c], x, y);
    KEEP_ALL(acc);
  }
  report("vfmadd231ph", seconds() - start, 32);
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
  if (__builtin_cpu_supports("avx512fp16"))
    fma_ph();
  return 0;
}
