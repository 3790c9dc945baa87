#!/usr/bin/env bash
# The install as a user gets it: `cmake --install BUILD --prefix P` into a
# scratch prefix, then, from outside the source tree,
#  - the layout (tools, libtessel.so + .a, headers, CMake package, tessel.pc,
#    the Python package when built);
#  - the installed runtime needs nothing from LLVM or MLIR, and no installed
#    file has a run path into the build or source tree;
#  - examples/embed-c and examples/embed-cpp configured with find_package(Tessel)
#    and built against P (shared, and static for one), and embed-c built
#    with pkg-config alone; each runs examples/mlp.onnx compiled by P's
#    tessel-compile and must print examples/mlp_expected.npy;
#  - P's tessel-run and tessel-bench run it; `import tessel` from
#    P/lib/python3/dist-packages runs it too;
#  - the tools and examples still run with the build tree hidden (a mount
#    namespace binds an empty folder over it).
# usage: install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
fails=0
check() { # check NAME COMMAND...: runs it, reports
  if "${@:2}" > "$work/last.log" 2>&1; then
    echo "PASS: install: $1"
  else
    echo "FAIL: install: $1"; sed 's/^/    /' "$work/last.log" | tail -30
    fails=$((fails + 1))
  fi
}

cmake --install "$build" --prefix "$prefix" > "$work/install.log"

layout() {
  local f
  for f in bin/tessel-compile bin/tessel-run bin/tessel-opt bin/tessel-bench \
      lib/libtessel.so lib/libtessel.a include/tessel/tessel.h \
      include/tessel/tessel.hpp lib/cmake/Tessel/TesselConfig.cmake \
      lib/cmake/Tessel/TesselConfigVersion.cmake lib/cmake/Tessel/TesselTargets.cmake \
      lib/pkgconfig/tessel.pc; do
    [ -e "$prefix/$f" ] || { echo "missing $f"; return 1; }
  done
  if [ -d "$build/python/tessel" ]; then
    ls "$prefix"/lib/python3/dist-packages/tessel/__init__.py \
       "$prefix"/lib/python3/dist-packages/tessel/_tessel*.so
  fi
}
check "layout" layout

runtime_deps() {
  local needed
  needed=$(readelf -d "$prefix/lib/libtessel.so" | grep NEEDED)
  echo "$needed"
  ! grep -qiE 'llvm|mlir|protobuf|onnx' <<< "$needed"
  # Nothing of LLVM in the static archive either: its undefined symbols
  # are the C and C++ runtimes' only.
  ! nm -u "$prefix/lib/libtessel.a" 2>/dev/null | grep -qE 'llvm|mlir'
}
check "runtime depends on nothing from LLVM or MLIR" runtime_deps

run_paths() {
  local f bad=0
  for f in "$prefix"/bin/* "$prefix"/lib/*.so* "$prefix"/lib/python3/dist-packages/tessel/*.so; do
    [ -e "$f" ] || continue
    if readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -qE "$build|$src"; then
      echo "$f has a run path into the build or source tree:"
      readelf -d "$f" | grep -E 'RPATH|RUNPATH'
      bad=1
    fi
  done
  return $bad
}
check "no run path into the build or source tree" run_paths

# Everything below runs from the scratch folder, with P's tools.
cd "$work"
check "tessel-compile from P" "$prefix/bin/tessel-compile" "$src/examples/mlp.onnx" -o mlp.tsl

compare() { # compare LOG: the printed values of 'probs' against the expected
  /usr/bin/python3 - "$1" "$src/examples/mlp_expected.npy" <<'PY'
import sys, numpy as np
lines = open(sys.argv[1]).read().split("\n")
i = next(i for i, l in enumerate(lines) if l.startswith("output 'probs' float32 [2, 10]"))
got = np.array([float(v) for v in lines[i + 1].split()], dtype=np.float32)
want = np.load(sys.argv[2]).reshape(-1)
err = np.abs(got - want).max()
print("max abs error", err)
sys.exit(0 if got.shape == want.shape and err <= 1e-5 else 1)
PY
}

example() { # example NAME LANG-DIR CMAKE-ARGS...
  local dir=$2 out=$work/$1
  cmake -S "$src/examples/$dir" -B "$out" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "${@:3}" &&
  cmake --build "$out" &&
  "$out/$dir" mlp.tsl input="$src/examples/mlp_input.npy" > "$out.log" &&
  cat "$out.log" && compare "$out.log"
}
check "examples/embed-c with find_package(Tessel)" example embed-c-shared embed-c
check "examples/embed-c, static runtime" example embed-c-static embed-c -DEMBED_STATIC=ON
check "examples/embed-cpp with find_package(Tessel)" example embed-cpp-shared embed-cpp
check "examples/embed-cpp, static runtime" example embed-cpp-static embed-cpp -DEMBED_STATIC=ON

static_has_no_tessel_so() {
  ! readelf -d "$work/embed-cpp-static/embed-cpp" | grep NEEDED | grep -q libtessel
}
check "the static example does not need libtessel.so" static_has_no_tessel_so

pkg() {
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  # shellcheck disable=SC2046
  cc -o embed-c-pkg "$src/examples/embed-c/main.c" "$src/examples/embed-c/npy.c" \
     $(pkg-config --cflags --libs tessel) &&
  LD_LIBRARY_PATH=$prefix/lib ./embed-c-pkg mlp.tsl input="$src/examples/mlp_input.npy" > pkg.log &&
  compare pkg.log
}
check "examples/embed-c with pkg-config" pkg

run_tool() {
  "$prefix/bin/tessel-run" mlp.tsl --input input="$src/examples/mlp_input.npy" \
    --output-dir run-out &&
  /usr/bin/python3 -c 'import sys, numpy as np
err = np.abs(np.load("run-out/probs.npy") - np.load(sys.argv[1])).max()
print("max abs error", err); sys.exit(int(err > 1e-5))' "$src/examples/mlp_expected.npy"
}
check "tessel-run from P" run_tool
bench() {
  "$prefix/bin/tessel-bench" mlp.tsl --shape input=2x64 --iterations 3 --warmup 1 --json - > bench.json &&
  /usr/bin/python3 -c 'import json,sys; r=json.loads(open("bench.json").readline()); sys.exit(r["iterations"] != 3)'
}
check "tessel-bench from P" bench

python_import() {
  PYTHONPATH=$prefix/lib/python3/dist-packages /usr/bin/python3 - "$src" <<'PY'
import sys, numpy as np, tessel
src = sys.argv[1]
s = tessel.Session("mlp.tsl")
out = s.run({"input": np.load(src + "/examples/mlp_input.npy")})
err = np.abs(out["probs"] - np.load(src + "/examples/mlp_expected.npy")).max()
print("max abs error", err)
sys.exit(0 if err <= 1e-5 else 1)
PY
}
if [ -d "$build/python/tessel" ]; then
  check "import tessel from P/lib/python3/dist-packages" python_import
fi

# The tools and two examples with the build tree hidden: in a private mount
# namespace, the scratch folder (which may lie inside the build tree) is
# bound to a new place outside it, then an empty folder is bound over the
# build tree. The prefix is used from its new place, so this also checks
# that it can be moved.
hidden_build() {
  local outside
  mkdir -p "$work/empty"
  outside=$(mktemp -d /tmp/tessel-install-XXXXXX)
  unshare --mount bash -c '
    set -e
    mount --bind "$1" "$4"
    mount --bind "$1/empty" "$2"
    [ -z "$(ls -A "$2")" ]
    cd "$4"
    ./prefix/bin/tessel-compile "$3/examples/mlp.onnx" -o hidden.tsl
    ./prefix/bin/tessel-run hidden.tsl --input input="$3/examples/mlp_input.npy" --output-dir hidden-out
    ./prefix/bin/tessel-bench hidden.tsl --shape input=1x64 --iterations 2 --warmup 0 > /dev/null
    ./embed-cpp-static/embed-cpp hidden.tsl input="$3/examples/mlp_input.npy" > /dev/null
    LD_LIBRARY_PATH=$4/prefix/lib ./embed-c-pkg hidden.tsl input="$3/examples/mlp_input.npy" > /dev/null
    [ ! -d "$4/prefix/lib/python3/dist-packages/tessel" ] ||
    PYTHONPATH=$4/prefix/lib/python3/dist-packages /usr/bin/python3 -c "import tessel; tessel.compile(\"$3/examples/mlp.onnx\", \"py.tsl\"); tessel.Session(\"py.tsl\")"
  ' hidden "$work" "$build" "$src" "$outside"
  local rc=$?
  rmdir "$outside"
  return $rc
}
check "the installed tools and examples run with the build tree hidden" hidden_build

if [ "$fails" -ne 0 ]; then
  echo "install: $fails check(s) failed"
  exit 1
fi
echo "install: all checks passed"
