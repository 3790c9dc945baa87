# Tessel — top-level entry points. See README.md.
#
#   make deps   install the Debian packages the build and tests need (root)
#   make build  configure + build into build/ (tools in build/bin/)
#   make demo   deps + build + compile examples/mlp.onnx for the CPU and run it
#   make test   deps + build + every test (lit, GoogleTest, end to end,
#               Python, and an install with the examples built against it)
#   make install PREFIX=P
#               build + install the tools, the runtime (shared and static),
#               its headers, CMake package, tessel.pc and the Python module
#               into P (default /usr/local)
#   make test-models  deps + build + real models (ResNet, MobileNet, BERT/GPT-like) against
#               ONNX Runtime (scripts/test_models.py; installs PyTorch and ONNX Runtime;
#               `.ci/run` runs it after `make test`), on the CPU and then on --device
#               vulkan (lavapipe: one untimed run per case, the CNNs at batch 1 and 2,
#               about 5 minutes; timed runs and batch 4 took 11).
#               Options: TEST_MODELS_ARGS="--only resnet18"
#   make test-models-zoo  deps + build + 20 more architectures (scripts/export_zoo.py:
#               DenseNet, GoogLeNet, ShuffleNet, RegNet, MobileNet-V3, EfficientNet, explicit
#               Pad, Swin, ViT, DeepLabV3/LR-ASPP, R3D, LSTM/GRU, seq2seq, audio encoder,
#               U-Net, ESPCN, style transfer, a detector with NMS/RoiAlign) at opsets 13
#               and 17, batch 1 and 2, against ONNX Runtime (relative L2 <= 1e-4) on the
#               CPU. Not in CI (12 minutes on 2 cores, which CI's 90 do not leave).
#               Options: TEST_MODELS_ARGS="--only unet"
#   make test-sanitize
#               a second build with assertions, AddressSanitizer and
#               UndefinedBehaviorSanitizer in build-sanitize/, then the runtime
#               GoogleTests, the bad-input suite, a seeded 15 % of the ONNX node
#               tests (SANITIZE_NODE_SAMPLE, SANITIZE_NODE_SEED), a small sweep, the
#               dot-product kernels and the pre-quantized models on it

BUILD      ?= build
JOBS       ?= 2
CMAKE_ARGS ?=
TEST_MODELS_ARGS ?=
SANITIZE_BUILD ?= build-sanitize
# The sanitizer build runs a seeded share of the node tests (every folder
# takes too long under ASan on 2 cores); the seed changes what is sampled.
# 15 % since CI's last run took 5252 s of its 5400 (a quarter before).
SANITIZE_NODE_SAMPLE ?= 0.15
SANITIZE_NODE_SEED ?= 20
PREFIX     ?= /usr/local

PACKAGES = cmake ninja-build ccache g++ python3 \
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22 clang-22 \
  libprotobuf-dev protobuf-compiler libonnx-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  libamdhip64-dev rocm-device-libs \
  python3-numpy python3-onnx python3-sklearn python3-dev python3-pytest pybind11-dev pkg-config \
  libvulkan-dev mesa-vulkan-drivers spirv-tools glslang-tools

.PHONY: deps build demo test test-sanitize test-models test-models-zoo install clean

deps:
	@if dpkg-query -W -f='$${Status}\n' $(PACKAGES) 2>/dev/null | grep -vq '^install ok installed$$' \
	   || [ "$$(dpkg-query -W -f='$${Status}\n' $(PACKAGES) 2>/dev/null | wc -l)" -ne $(words $(PACKAGES)) ]; then \
	  echo "== installing Debian packages"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(PACKAGES); \
	else echo "== Debian packages present"; fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	  -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld -B/usr/lib/llvm-22/bin" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fuse-ld=lld -B/usr/lib/llvm-22/bin" \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit $(CMAKE_ARGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps
	$(MAKE) build
	$(BUILD)/bin/tessel-compile examples/mlp.onnx -o $(BUILD)/mlp.tsl
	$(BUILD)/bin/tessel-run $(BUILD)/mlp.tsl --input input=examples/mlp_input.npy --print

test: deps
	$(MAKE) build
	cmake --build $(BUILD) --target check -j $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

test-models: deps
	$(MAKE) build
	/usr/bin/python3 scripts/test_models.py --tessel-bin $(BUILD)/bin --work $(BUILD)/models-test $(TEST_MODELS_ARGS)
	/usr/bin/python3 scripts/test_models.py --tessel-bin $(BUILD)/bin --work $(BUILD)/models-test \
	  --device vulkan --runs 0 --cnn-batches 1,2 --no-install $(TEST_MODELS_ARGS)
test-models-zoo: deps
	$(MAKE) build
	/usr/bin/python3 scripts/test_models.py --zoo --runs 1 --tessel-bin $(BUILD)/bin \
	  --work $(BUILD)/models-test $(TEST_MODELS_ARGS)
# Assertions on (-O1 -g1: line tables, enough for ASan's stack traces, and a
# quicker build than full debug info; no NDEBUG), ASan + UBSan on every Tessel target;
# libMLIR.so and libLLVM.so stay as Debian built them (uninstrumented).
$(SANITIZE_BUILD)/build.ninja:
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
	  -DTESSEL_SANITIZE=ON \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	  -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld -B/usr/lib/llvm-22/bin" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fuse-ld=lld -B/usr/lib/llvm-22/bin" \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit $(CMAKE_ARGS)

# Any sanitizer report fails the run: ASan and UBSan (no recovery) end the
# process with an error exit, which every suite counts as a failure. Leak
# detection stays on everywhere.
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
  UBSAN_OPTIONS=print_stacktrace=1

test-sanitize: deps $(SANITIZE_BUILD)/build.ninja
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target tessel-runtime-tests tessel-compile tessel-run
	@status=0; \
	echo "== sanitize: runtime GoogleTests"; \
	(cd $(SANITIZE_BUILD)/test/gtest && $(SANITIZE_ENV) ../../bin/tessel-runtime-tests --gtest_brief=1) || status=1; \
	echo "== sanitize: bad input"; \
	$(SANITIZE_ENV) bash test/e2e/bad_input_test.sh $(CURDIR)/$(SANITIZE_BUILD)/bin $(CURDIR)/$(SANITIZE_BUILD)/e2e/bad-input || status=1; \
	echo "== sanitize: ONNX node tests (a seeded 15 % of the folders)"; \
	$(SANITIZE_ENV) /usr/bin/python3 test/e2e/node_tests.py --bin-dir $(CURDIR)/$(SANITIZE_BUILD)/bin \
	  --work-dir $(CURDIR)/$(SANITIZE_BUILD)/e2e/node-tests -j $(JOBS) \
	  --sample $(SANITIZE_NODE_SAMPLE) --seed $(SANITIZE_NODE_SEED) || status=1; \
	echo "== sanitize: sweep of Conv, ConvTranspose, pooling, MatMul/Gemm and Resize shapes"; \
	$(SANITIZE_ENV) /usr/bin/python3 test/e2e/sweep_test.py --bin-dir $(CURDIR)/$(SANITIZE_BUILD)/bin \
	  --work-dir $(CURDIR)/$(SANITIZE_BUILD)/e2e/sweep --cases 20 || status=1; \
	echo "== sanitize: int8/bf16 dot-product kernels and pre-quantized models"; \
	$(SANITIZE_ENV) /usr/bin/python3 test/e2e/dot_product_test.py --bin-dir $(CURDIR)/$(SANITIZE_BUILD)/bin \
	  --work-dir $(CURDIR)/$(SANITIZE_BUILD)/e2e/dot-products || status=1; \
	$(SANITIZE_ENV) /usr/bin/python3 test/e2e/prequantized_test.py --bin-dir $(CURDIR)/$(SANITIZE_BUILD)/bin \
	  --work-dir $(CURDIR)/$(SANITIZE_BUILD)/e2e/prequantized || status=1; \
	exit $$status

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
