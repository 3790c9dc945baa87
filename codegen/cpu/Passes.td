//===- Passes.td - The CPU's own codegen passes -------------*- tablegen -*-===//
//
// The CPU's choices (tile sizes) and last mile (workgroup ids), around the
// shared mechanisms of passes/tiling and codegen/common.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_PASSES
#define TESSEL_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def CpuWorkgroupTilesPass
    : Pass<"tessel-cpu-workgroup-tiles", "mlir::func::FuncOp"> {
  let summary = "Choose the CPU's workgroup tiles of each group root";
  let description = [{
    Runs on kernels in linalg on tensors after tessel-form-workgroup-groups,
    before tessel-tile-and-fuse-workgroups, and records on each group root
    `tessel.workgroup_tiles`. A workgroup is a task of the runtime's thread
    pool, so the choice is about cores and caches: about `max-workgroups`
    workgroups of at least `min-work` loop iterations each (reductions
    included), counted on the group's contraction when the root is its
    epilogue; tiles that divide the extent where one does (full tiles keep
    static sizes for the register tiles) and are a multiple of the register
    tile's step on its row and vector loops; a dynamic loop (a batch, a
    sequence) in tiles of at least `min-work` iterations as far as the
    static extents tell; at most three loops split, and only workgroup
    loops. Loops that partition the most input data go first (outer first
    among equals), so that a workgroup reads its slice of the largest
    operand: a MatMul's weight columns, a 1x1 Conv's input rows. The
    output's last loop is split only in a MatMul-like op (a reduction, every
    index a plain loop) or when it is the only workgroup loop. A group with
    temporaries has its run-time loops split (they size the temporaries),
    and its tiles shrunk, or loops left whole split while an axis is free,
    until the temporaries fit `max-temp-bytes` (they live on the stack of
    the thread that runs the workgroup); an error when they cannot.
  }];
  let options = [
    Option<"maxWorkgroups", "max-workgroups", "int64_t", "64",
           "Workgroups to aim for when the work allows">,
    Option<"minWork", "min-work", "int64_t", "32768",
           "Fewest loop iterations worth a workgroup of their own">,
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "SIMD register width in bits (the register tile's step)">,
    Option<"maxTempBytes", "max-temp-bytes", "int64_t", "262144",
           "Largest workgroup temporaries of one workgroup">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def CpuMapWorkgroupsPass
    : Pass<"tessel-cpu-map-workgroups", "mlir::func::FuncOp"> {
  let summary = "Run one workgroup's iteration of a stage's forall";
  let description = [{
    Runs on stages (tessel-outline-stages) for the CPU, whose runtime runs a
    launch as a grid of workgroups on its thread pool. Every stage gets six
    trailing `index` arguments: its workgroup id along x, y, z and the
    workgroup count along x, y, z (docs/design.md "Kernel ABI"). In a stage
    that is an `scf.forall` (tessel-tile-and-fuse-workgroups), each split
    dim (step below its bound) becomes a grid axis, in order, and the body
    runs once, for the iteration `lb + id * step` of the workgroup along its
    axis; a dim left whole (step equal to its bound) runs its one
    iteration. The workgroup's temporaries become stack buffers. The stage
    records its launch: `tessel.workgroup_count` per axis `[step, d]` (the
    stage's work dim d in tiles of step), and `tessel.workgroup_size`
    (1, 1, 1). Any other stage is one workgroup.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

#endif // TESSEL_CODEGEN_CPU_PASSES
