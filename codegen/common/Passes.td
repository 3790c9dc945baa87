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
    also rewrite maximumf into compares, losing vmaxps).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ExpandErfPass : Pass<"tessel-expand-erf"> {
  let summary = "f32 erf as a polynomial (arith and fma), not a libm call";
  let description = [{
    math.erf on f32 (scalars or vectors) becomes MLIR's f32 polynomial
    approximation, the one the GPU targets use (tessel-map-stages-to-gpu),
    so that a CPU loop over erf (GELU) vectorizes instead of calling libm's
    erff once per element. Other element types keep the libm call.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def FuseEpiloguesPass : Pass<"tessel-fuse-epilogues", "mlir::func::FuncOp"> {
  let summary = "A contraction and its elementwise epilogue as one stage";
  let description = [{
    Runs on bufferized kernels, before tessel-outline-stages. Where a
    temporary buffer is written by producers that include a reduction (a
    Conv's bias broadcast and its accumulation, a MatMul's zero fill and
    its product), each at the identity of its leading parallel loops, and
    read by one elementwise linalg.generic (the epilogue: bias, Relu, Clip,
    the residual Add) at the identity of the same dims, the producers write
    the epilogue's output instead and the epilogue updates it in place. The
    temporary disappears, and the producers and the epilogue are marked as
    one stage group (`tessel.stage_group`), which tessel-outline-stages
    keeps in one stage. Every op of the group iterates the output's dims in
    order, so a target that splits the stage's work dims splits them all
    the same way: on the CPU each workgroup initializes, accumulates and
    finishes its tile while it is in cache; on a GPU the thread that
    accumulates an element also finishes it. Results are unchanged: each
    element is computed by the same operations in the same order.
  }];
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
    target with SIMD registers of `vector-bits` bits. Only ops with a
    reduction loop are touched; elementwise loops are left to LLVM, whose
    loop vectorizer handles them already.

      * Register tiles. An op whose output's last dim `n` is a parallel loop
        that each input indexes, if at all, in its last dim (MatMul, Gemm,
        batched MatMul, Conv, pooling): `n` is tiled by 2 vectors (1 when
        the extent fits in one) and a row loop `m` by 4 (an output loop the
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
        (Conv with stride 2) becomes one contiguous read and a shuffle.
      * Other reductions whose output's last loop `n` is also (part of) the
        last index of the inputs: the loops are interchanged so that `n` is
        innermost, for LLVM's loop vectorizer.

    Neither rewrite reorders the additions that produce one output element,
    so results are bit-identical to the plain loop nest's.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "SIMD register width in bits (128: SSE, 256: AVX2, 512: AVX-512)">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::ub::UBDialect"];
}

def DistributeToWorkgroupsPass
    : Pass<"tessel-distribute-to-workgroups", "mlir::func::FuncOp"> {
  let summary = "Split a stage's parallel loops over a grid of workgroups";
  let description = [{
    Runs on stages (see tessel-outline-stages) for a target whose runtime
    runs a launch as a grid of workgroups on a pool of threads (the CPU).
    Every stage gets six trailing `index` arguments: its workgroup id along
    x, y, z and the workgroup count along x, y, z (docs/design.md "Kernel
    ABI"). A stage that is one linalg op, or a stage group of ops over the
    same output (tessel-fuse-epilogues), has up to three of its work dims
    (`tessel.work_dims`) tiled with upstream's tileUsingSCF, every op alike;
    each tile loop then runs only the iteration of the workgroup's id along
    its axis (axes in loop order). The split is chosen from the static
    extents of the op with the reduction: about `max-workgroups`
    workgroups of at least `min-work` loop iterations each (reductions
    included), tiles that divide the extent where one does (full tiles keep
    static sizes for the register tiles), tiles of the output's last loop
    or of a row loop a multiple of the register tile's step, a dynamic dim
    (a batch, a sequence) in tiles of at least `min-work` iterations as far
    as the static extents tell. Dims that partition the most input data go
    first (outer first among equals), so that a workgroup reads its slice
    of the largest operand: a MatMul's weight columns, a 1x1 Conv's input
    rows. The output's last loop is split only in a MatMul-like op (a
    reduction, every index a plain loop) or when it is the only work dim.

    The stage records what its launch needs: `tessel.workgroup_count`, per
    axis `[tile, dim...]` (ceil(product of work sizes dim... / tile)
    workgroups, none when empty: one), and `tessel.workgroup_size` (1, 1,
    1). Splitting work dims changes which thread computes an element, never
    the order of the additions that produce it: results are bit-identical
    at any thread count.
  }];
  let options = [
    Option<"maxWorkgroups", "max-workgroups", "int64_t", "64",
           "Workgroups to aim for when the work allows">,
    Option<"minWork", "min-work", "int64_t", "32768",
           "Fewest loop iterations worth a workgroup of their own">,
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "SIMD register width in bits (the register tile's step)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
}

def MapStagesToGpuPass : Pass<"tessel-map-stages-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn each stage into a grid-stride GPU kernel";
  let description = [{
    Runs on stages (see tessel-outline-stages) whose loops are scf.parallel
    nests with sequential scf.for reductions inside. Each stage function
    becomes a `gpu.func` kernel of the same name and signature in one
    `gpu.module`: its top-level scf.parallel becomes one work item per
    thread of a 1-D grid of 256-thread blocks (thread id = blockIdx.x * 256
    + threadIdx.x, delinearized into the loop's indices, guarded by
    id < the loop's trip count), so the runtime launches
    ceil(work / 256) blocks. A stage without parallel loops runs on the
    first thread. tanh is expanded into exp, erf into an f32 polynomial and
    powf into exp and log (ExpandDeviceMath.cpp).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuMathToIntrinsicsPass : Pass<"tessel-gpu-math-to-intrinsics"> {
  let summary = "Map LLVM math intrinsics to the GPU vendor's own";
  let description = [{
    The upstream GPU conversions turn exp, sqrt, floor, ... into calls to a
    vendor device library (libdevice, ocml), which Tessel does not link.
    This pass maps the f32 LLVM intrinsics to the vendor's instructions
    instead: exp via exp2 (ex2.approx / v_exp_f32), log via log2
    (lg2.approx / v_log_f32), sqrt (sqrt.rn / v_sqrt_f32) and floor. Run it after convert-math-to-llvm, before
    convert-gpu-to-nvvm / convert-gpu-to-rocdl.
  }];
  let options = [
    Option<"vendor", "vendor", "std::string", "\"nvidia\"",
           "nvidia or amd">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // TESSEL_CODEGEN_COMMON_PASSES
