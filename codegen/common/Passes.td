//===- Passes.td - Target-independent codegen passes ----*- tablegen -*-===//
//
// The shared lowering every target runs: graph -> linalg on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_PASSES
#define TESSEL_CODEGEN_COMMON_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToLinalgPass : Pass<"tessel-convert-graph-to-linalg"> {
  let summary = "Lower Tessel graph ops to linalg, tensor, arith and math";
  let description = [{
    Each graph op becomes linalg ops on tensors (mostly linalg.generic with
    the indexing maps of the ONNX operator: numpy broadcasting, strided and
    dilated windows, grouped convolution). Dynamic result dims are computed
    from the operands with tensor.dim. Fails, with an error at the op's
    location (its ONNX node), on an op it cannot lower.
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::affine::AffineDialect"
  ];
}

def MemRefCopyToLinalgPass : Pass<"tessel-memref-copy-to-linalg"> {
  let summary = "Rewrite memref.copy into linalg.generic copies";
  let description = [{
    Bufferization copies between buffers with memref.copy, which the LLVM
    lowering turns into a call to a runtime library for strided views and
    which cannot run inside a GPU kernel. As linalg copies they lower like
    every other loop nest, on every target.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ExpandBFloat16Pass : Pass<"tessel-expand-bf16"> {
  let summary = "bf16 conversions as integer ops (no compiler-rt builtins)";
  let description = [{
    extf/truncf between f32 and bf16 become shifts, bitcasts and the
    round-to-nearest-even arithmetic, so that CPU code does not call
    compiler-rt's __truncsfbf2 / __extendbfsf2, which the kernels' shared
    object does not link. Only those conversions change (arith-expand would
    also rewrite maximumf into compares, losing vmaxps). What only moves
    bf16 values moves their bits as i16: a broadcast of a bf16 scalar (the
    CPU backend below AVX512-BF16 would build the vector through f32 and
    __truncsfbf2) and a select of bf16 values (what emulation leaves of a
    Relu or Max; SPIR-V has no bf16 to select).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def BFloat16MaskedMemoryPass : Pass<"tessel-bf16-masked-memory"> {
  let summary = "Masked moves and lane moves of bf16 vectors use i16 lanes";
  let description = [{
    LLVM's x86 backend has no masked move of bf16 lanes below AVX512-BF16:
    it scalarizes llvm.intr.masked.load/store of a bf16 vector, and each
    lane goes through f32 and back with a call to compiler-rt's
    __truncsfbf2, which the kernels' shared object does not link. The bits
    are all a masked move needs, so the vector is bitcast to i16 lanes
    around it. The same holds for insertelement, extractelement and
    shufflevector of bf16 lanes (broadcasts and unrolled transfers of bf16
    operands, as mixed-precision contractions read them), which the
    backend builds lane by lane through f32. Runs after
    convert-vector-to-llvm (the intrinsics exist only from there on).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ExpandMathPass : Pass<"tessel-expand-math"> {
  let summary = "f32 erf and exp as polynomials (arith and fma), not libm calls";
  let description = [{
    math.tanh (f32 and f64) is expanded into exp and a polynomial
    (ExpandTanh, shared with the GPU targets: the Maclaurin series near 0,
    where the exp form cancels). math.erf and math.exp on f32 (scalars or
    vectors) become MLIR's f32 polynomial approximations (erf: the one the
    GPU targets use), so that a CPU loop over them (GELU, softmax, sigmoid,
    tanh) runs on vectors: LLVM turns a vector exp into one libm call per lane. exp keeps
    its special cases, which the approximation alone gets wrong: NaN stays
    NaN, exp(x) is +inf above ln(FLT_MAX) and 0 below ln(FLT_MIN) (results
    that would be subnormal flush to zero). Other element types keep the
    libm call.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def OutlineStagesPass : Pass<"tessel-outline-stages", "mlir::ModuleOp"> {
  let summary = "Split bufferized kernels into stages with runtime-owned workspaces";
  let description = [{
    After bufferization a kernel is a sequence of loop nests (a softmax is a
    max, an exp-sum and a division) that may pass temporaries between them.
    This pass makes both explicit for the runtime:
      * every top-level memref.alloc becomes a trailing "workspace" argument
        (the runtime allocates it; its dynamic dims must be dims of the
        kernel's arguments, recorded in `tessel.workspace_dims`);
      * every top-level op that writes memory becomes its own function
        `<kernel>_s<N>` (`tessel.kernel_of` names the kernel), with the pure
        ops it needs (constants, dims) cloned in.
    A stage is the unit a GPU launches as one kernel: consecutive stages
    need a grid-wide barrier, which a separate launch provides. Each stage
    also gets `tessel.work_dims`, the extents of its top-level parallel loop
    (constants or argument dims), from which the plan sizes the launch.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def TileAndVectorizePass : Pass<"tessel-tile-and-vectorize", "mlir::func::FuncOp"> {
  let summary = "Register-tile and vectorize the reductions of a stage";
  let description = [{
    Runs on stages (linalg ops on memrefs, see tessel-outline-stages) for a
    target with SIMD registers of `vector-bits` bits.

      * Narrow rows merged. When the output's last loop is shorter than
        two vectors and it and the loop before it are plain loops that run
        contiguously through every operand (an epilogue, or a 1x1 Conv once
        its unit kh and kw loops are dropped), the two become one loop: a
        7x7 image is 49 contiguous outputs instead of rows of 7 lanes.
      * Register tiles. An op whose output's last dim `n` is a parallel loop
        that each input indexes, if at all, in its last dim (MatMul, Gemm,
        batched MatMul, Conv, pooling): `n` is tiled by 2 vectors (1 when
        the extent fits in one) and a row loop `m` by 4, 8 with 512-bit
        vectors (AVX-512 has 32 registers) (an output loop the
        `n` operands do not use, such as MatMul's M or Conv's output
        channels: one vector load then feeds 4 rows), every other loop by
        1, reductions innermost. The `m` and `n` tile loops are peeled: full
        tiles are unmasked, the last partial ones masked. Inside a tile an
        index such as Conv's `oh * s + kh` is `s * m`, `n` or 0, so each
        operand becomes a 1-d or 2-d (strided) view and the tile an
        outer-product update that linalg's vectorizer turns into plain
        4 x lanes vector arithmetic. The output tile then leaves the
        reduction loops as an iter_arg (an accumulator in registers: a
        stage's output never aliases its inputs). A read at stride c > 1
        (Conv with stride 2) becomes one contiguous read and a shuffle; a
        row operand broadcast along the vectors, one scalar load per row.
      * Channel vectors. When `n` is shorter than two vectors or an input
        reads it through a window or a stride (a 3x3 or strided Conv), and
        another parallel output loop is the contiguous last dim of some
        input and used by no other (a Conv's output channels with its
        weights filters-last), the vectors run along that loop and `n`
        gives the rows; the output tile is read and written transposed.
      * Streamed operands packed. When the operand a register tile streams
        along `n` and the reductions (MatMul's B) is a static view of a
        wider tensor, at most 32 KiB, and at least two row blocks re-read
        it, it is first copied into a contiguous buffer on the stack. In
        place its rows lie a full row of the weight apart: 4 KiB for
        N = 1024 floats, every row in the same L1 set.
      * Elementwise ops (no reduction loop) whose output's last loop `n`
        each input indexes, if at all, in its last dim: `n` is tiled by two
        vectors (one when a static extent fits in one), every other loop by
        1, peeled and vectorized like a register tile. LLVM's loop
        vectorizer gives up on some bodies (erf's polynomial in a GELU
        epilogue). A body that divides integers stays scalar: a masked lane
        would divide by zero.
      * Epilogues in the tile. A contraction's initializer (a bias broadcast
        or fill right before it, writing its whole output without reading
        it) and the elementwise ops right after it that update its output
        in place or read it at the identity into a buffer of their own are
        sliced to each of its register tiles (the initializer before the
        tile's reduction loops, the epilogues after them) and vectorized
        with the tile's shape; a write is then forwarded to the read of
        exactly its lanes after it in the block, and a write overwritten
        before any read, or to a temporary no one reads, goes. The tile is
        stored once, after its epilogue (see EpilogueTiles.h).
      * Other reductions whose output's last loop `n` is also (part of) the
        last index of the inputs: the loops are interchanged so that `n` is
        innermost, for LLVM's loop vectorizer.

      * Dot-product tiles (`int8-dot`, `bf16-dot`). A MatMul-like register
        tile whose sums are u8 x i8 -> i32 (int8 with unsigned activations)
        or bf16 x bf16 -> f32, with the reduction the contiguous last dim
        of the row operand and the second-to-last of the vector operand,
        steps its reduction by groups of 4 (int8) or 2 (bf16): each row
        broadcasts its group (4 bytes), the vector operand's rows of the
        group are interleaved in registers, and one x86 dot product per
        vector (`vpdpbusd`, `vdpbf16ps`) adds a whole group. Partial tiles
        and a last partial group run one step at a time as above.

    Neither rewrite reorders the additions that produce one output element,
    so results are bit-identical to the plain loop nest's, except in a
    bf16 dot-product tile, where the instruction adds each pair of
    products before the sum (and flushes denormals).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "SIMD register width in bits (128: SSE, 256: AVX2, 512: AVX-512)">,
    Option<"int8Dot", "int8-dot", "bool", "false",
           "u8 x i8 contractions use vpdpbusd (AVX512-VNNI; 256-bit vectors "
           "need AVX512-VL)">,
    Option<"bf16Dot", "bf16-dot", "bool", "false",
           "bf16 contractions use vdpbf16ps (AVX512-BF16; 256-bit vectors "
           "need AVX512-VL)">,
    Option<"bytePermutes", "byte-permutes", "bool", "false",
           "int8 dot-product tiles at 512 bits gather their vector operand "
           "with vpermi2b (AVX512-VBMI)">,
    Option<"wordPermutes", "word-permutes", "bool", "false",
           "bf16 dot-product tiles at 512 bits gather their vector operand "
           "with vpermi2w (AVX512-BW)">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::ub::UBDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def GpuWorkgroupTilesPass
    : Pass<"tessel-gpu-workgroup-tiles", "mlir::func::FuncOp"> {
  let summary = "Choose a GPU's workgroup (block) tiles of each group root";
  let description = [{
    Runs on kernels in linalg on tensors after tessel-form-workgroup-groups,
    before tessel-tile-and-fuse-workgroups, for every GPU target, and
    records on each group root `tessel.workgroup_tiles`: a block computes a
    tile of about `threads` elements of the root's workgroup loops, taken
    from the innermost loop out (the innermost of those loops runs along
    threadIdx.x, so neighbouring threads touch neighbouring elements), at
    most three loops split (the grid's x, y and z), the others left whole.
    A tile is shrunk while the group's workgroup temporaries, which live in
    workgroup (shared) memory, would exceed `max-temp-bytes`. Row reductions
    of a block with fewer elements than threads are marked for
    tessel-gpu-split-reductions.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", "256",
           "Elements of the root's workgroup loops per block">,
    Option<"maxTempBytes", "max-temp-bytes", "int64_t", "32768",
           "Largest workgroup (shared) memory of one block">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def GpuSplitReductionsPass
    : Pass<"tessel-gpu-split-reductions", "mlir::func::FuncOp"> {
  let summary = "Reduce a block's rows with all its threads";
  let description = [{
    Runs after tessel-tile-and-fuse-workgroups for a GPU target. A block
    whose tile has fewer rows than threads would fold each row (softmax's
    maximum and sum, LayerNorm's mean) on one thread while the others wait.
    tessel-gpu-workgroup-tiles marks such reductions
    (`tessel.gpu_reduction_lanes = T`: a linalg.generic whose only
    reduction is its last loop, of a static extent that T divides, folded
    by one op with a neutral element; T a power of two, at most threads /
    rows). Inside a workgroup's forall each becomes
      * a fill of T partials per row with the neutral element,
      * the op over (rows, t, k') with k = k' * T + t, t parallel: lane t of
        a row folds the elements t, t + T, ... (neighbouring threads read
        neighbouring elements), and
      * a combine that folds each row's T partials, in lane order, into the
        original output.
    The partials are a workgroup temporary (shared memory); the block's
    threads run the lanes of all its rows at once. The additions are
    regrouped, so GPU results differ from the CPU's by rounding.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def MapStagesToGpuPass : Pass<"tessel-map-stages-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn each stage into a grid-stride GPU kernel";
  let description = [{
    Runs on stages (see tessel-outline-stages) whose loops are scf.parallel
    nests with sequential scf.for reductions inside. Each stage function
    becomes a `gpu.func` kernel of the same name and signature in one
    `gpu.module`, run by blocks of 256 threads.
      * A stage that is a workgroup forall (tessel-tile-and-fuse-workgroups)
        has its split dims on the grid's x, y and z (the runtime launches
        ceil(work / tile) blocks along each) and its body run by the block:
        each parallel loop of the tile block-stride over threadIdx.x (the
        loop's innermost index fastest), a barrier after each, anything else
        that writes memory on thread 0; the tile's temporaries live in
        workgroup (shared) memory, each a flat attribution viewed in the
        tile's shape (memref.expand_shape), so that every target indexes
        it as it indexes the kernel's arguments.
      * Any other stage has its top-level scf.parallel as one work item per
        thread of a 1-D grid (thread id = blockIdx.x * 256 + threadIdx.x,
        delinearized into the loop's indices, guarded by id < the loop's
        trip count), so the runtime launches ceil(work / 256) blocks; a
        stage without parallel loops runs on the first thread. tanh is expanded into exp, erf into an f32 polynomial and
    powf into exp and log (ExpandDeviceMath.cpp). The block size is the
    target's (`threads`, 256 on every target today).
  }];
  let options = [
    Option<"threads", "threads", "int64_t", "256",
           "Threads of a block (the workgroup size along x)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def GpuMathToIntrinsicsPass : Pass<"tessel-gpu-math-to-intrinsics"> {
  let summary = "Map LLVM math intrinsics to the GPU vendor's own";
  let description = [{
    The upstream GPU conversions turn exp, sqrt, floor, ... into calls to a
    vendor device library (libdevice, ocml), which Tessel does not link.
    This pass maps the f32 LLVM intrinsics to the vendor's instructions
    instead: exp via exp2 (ex2.approx / v_exp_f32), log via log2
    (lg2.approx / v_log_f32), sqrt (sqrt.rn / v_sqrt_f32) and floor; of
    f64, sqrt and floor (sqrt.rn.f64 and cvt.rmi.f64 / LLVM's own AMDGPU
    selection); f64 exp and log are expanded earlier
    (populateDeviceMathF64Patterns). Run it after convert-math-to-llvm,
    before convert-gpu-to-nvvm / convert-gpu-to-rocdl.
  }];
  let options = [
    Option<"vendor", "vendor", "std::string", "\"nvidia\"",
           "nvidia or amd">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // TESSEL_CODEGEN_COMMON_PASSES
