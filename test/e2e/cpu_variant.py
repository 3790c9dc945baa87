"""The CPU variant the end-to-end suites compile for.

tessel-compile builds one binary per CPU variant (default
x86-64-v4+avx512bf16+avx512vnni and x86-64-v3) and the runtime runs the
best one the host supports. The suites that compile hundreds of models
(node tests, sweeps, real models) build one variant only, which halves
their CPU code generation: x86-64-v3, the same on every machine, so that
CI tests the same code wherever it runs. TESSEL_TEST_MCPU overrides it: a
variant, or "host" for the default variant this machine runs (on an
AVX-512 machine, the AVX-512 code users get there by default). Every
variant the host supports runs in test/lit/tools/cpu-variants.test and
test/python/test_tessel.py.
"""
import os

DEFAULT_VARIANTS = ("x86-64-v4+avx512bf16+avx512vnni", "x86-64-v3")

# x86-64-v4 is AVX-512 F, BW, CD, DQ and VL; Linux spells the extensions
# of the first variant avx512_bf16 and avx512_vnni.
_V4_BF16_VNNI = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl",
                 "avx512_bf16", "avx512_vnni"}


def host_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def host_variant():
    """The default variant the runtime picks on this machine (if this guess
    is wrong, the runtime refuses the binary with what the CPU lacks: the
    suites fail, they do not test the wrong code)."""
    return DEFAULT_VARIANTS[0] if _V4_BF16_VNNI <= host_flags() else DEFAULT_VARIANTS[1]


def suite_variant():
    """The variant the suites compile for (see above)."""
    chosen = os.environ.get("TESSEL_TEST_MCPU", DEFAULT_VARIANTS[1])
    return host_variant() if chosen == "host" else chosen
