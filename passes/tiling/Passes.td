//===- Passes.td - Tiling and fusion on tensors -------------*- tablegen -*-===//
//
// Target-independent tiling and fusion of linalg on tensors, before
// bufferization. The tile sizes are each target's choice, which it records on
// the ops (codegen/<target>); these passes only apply them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_TILING_PASSES
#define TESSEL_PASSES_TILING_PASSES

include "mlir/Pass/PassBase.td"

def FormWorkgroupGroupsPass
    : Pass<"tessel-form-workgroup-groups", "mlir::func::FuncOp"> {
  let summary = "Decide which linalg ops one workgroup computes together";
  let description = [{
    Runs on kernels in linalg on tensors, for every target alike (the groups
    decide a kernel's stages and workspaces, which the artifact shares
    between targets; each target then picks its own tile sizes).

      * Pads in the tile. A tensor.pad by a constant read only by one
        op of a group, as an input, joins that group when no workgroup
        would copy a dim its reader sums over: each dim of the pad is read
        at a plain workgroup loop (a depthwise Conv's or a pooling's
        channels, the batch), at a constant, or, where the dim is padded,
        through a window (`oh * s + kh`: neighbouring tiles overlap by a
        halo, which each copies). tessel-tile-and-fuse-workgroups pads
        each workgroup's slice in a temporary of the workgroup. Per unit
        tile a window counts max(s, window extent) rows, an upper bound of
        `s * (T - 1) + extent` rows per T output rows. A Conv that sums its
        input channels would have every workgroup copy all of them: its
        pad stays out.
      * Other pads as linalg. A tensor.pad by a constant no group took
        becomes a fill of the padded tensor and a linalg.copy of the source
        into its interior (an insert_slice, in place after bufferization):
        two roots a target tiles like any other, instead of a copy left to
        one workgroup.
      * Epilogues in place. An elementwise linalg.generic that reads, at the
        identity, the whole result of a contraction (an op with a reduction
        loop) used by nothing else, and writes a fresh tensor of the same
        type, is rewritten to update that result in place: its destination
        becomes the contraction's result. The contraction, its
        initialization and its epilogue then write one buffer, the kernel's
        output; bias, activation and residual Add cost no temporary.
      * Groups, last op first. Each linalg op with parallel loops not yet in
        a group roots one (`tessel.workgroup_group = N`) whose workgroup
        loops (`tessel.workgroup_loops`) start as its leading parallel loops;
        a target may split those and only those. A producer joins the group
        when every use of it is in the group, each use reads it through a
        projected permutation (no windows, so no halos), one tiling of the
        producer fits all its readers, at least one workgroup loop remains
        that each read selects (a split never makes two workgroups compute
        the same producer element), and, when it is read as an input rather
        than as a destination, its tile per workgroup-loop unit is static
        and at most `max-temp-bytes` (a temporary of the workgroup), with at
        most three run-time workgroup loops sizing the group's temporaries
        (a target must split those, on one axis each).

    Nothing is tiled here: see tessel-tile-and-fuse-workgroups.
  }];
  let options = [
    Option<"maxTempBytes", "max-temp-bytes", "int64_t", "65536",
           "Largest workgroup temporary of a fused producer per unit tile">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TileAndFuseWorkgroupsPass
    : Pass<"tessel-tile-and-fuse-workgroups", "mlir::func::FuncOp"> {
  let summary = "Tile each group's root into workgroups and fuse the group into the tile";
  let description = [{
    Runs after tessel-form-workgroup-groups and a target's choice of tiles:
    the target puts on group roots `tessel.workgroup_tiles`, one size per
    loop, non-zero only on workgroup loops (0 leaves a loop whole: one tile
    of its whole extent, step = bound; a run-time loop that sizes the
    group's temporaries must be split). Each root that has a group of
    several ops or a tile (and no empty loop) is tiled into an
    `scf.forall` over its workgroup loops, in order, with
    upstream's tile-and-fuse, fusing exactly its group's producers; fused
    through destinations (a fill, a bias broadcast, a contraction below its
    epilogue) they work on the root's output tile, fused as inputs they get
    a temporary of the workgroup. A pad of the group is not tiled
    upstream: each slice of it in the tile becomes a temporary of the tile's
    shape whose border slabs take the pad's value and whose interior is a
    copy of the source rows the slice covers, clamped to the source (empty
    where the tile lies in the padding). The forall's dims are tagged
    `#gpu.block<linear_dim_i>` so that canonicalization keeps one-tile dims:
    its upper bounds are the stage's work sizes on every target (a root
    written into a kernel argument takes that argument's dims as bounds,
    which the plan knows).

    Tiling never reorders the additions that produce an element: results
    are bit-identical to the untiled kernel's.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect", "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // TESSEL_PASSES_TILING_PASSES
