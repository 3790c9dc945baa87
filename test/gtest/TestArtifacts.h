//===- TestArtifacts.h - Artifacts and helpers for the runtime tests -*- C++ -*-===//
//
// Small hand-built artifacts whose kernels (kernels/TestKernels.c for the
// CPU, kernels/TestKernels.ptx for CUDA, a fake code object for the fake
// HIP library, kernels/vulkan/*.comp compiled to SPIR-V for Vulkan) compute
// known results:
//
//   addModel:    inputs a, b: f32[batch]; y = (a + b) + a; s = sum(y)
//                (two launches of `add` through a transient, then `sum_all`
//                over y viewed as [1, batch])
//   weightModel: input x: f32[3]; z = (x + w1) + w2 with weights
//                w1 = {10, 20, 30} and w2 = {1, 2, 3}
//   probeModel:  input x: f32[2, n, 4]; p: i64[8] = the ABI descriptor the
//                kernel received (offset, sizes, strides, alloc == aligned)
//   reshapeModel: inputs x: f32[n, 6], shape: i64[3]; the shape program
//                reads the values of `shape` (op 0, InputValues, into
//                shape.0..2) and reshapes [n, 6] by them (op 1, Reshape of
//                node 'Reshape_0') into [r.d0, r.d1, r.d2], the view the
//                probe kernel gets; p as in probeModel
//
//   readbackModel: input x: f32[2, n, 4]; launch 0 (abi_probe) writes the
//                descriptor of x into the transient p: i64[8]; shape op 0
//                (BufferValues of node 'Resize_0', format 3.4) reads p back
//                into v.0..v.7 (v.1 static 2, checked); launch 1
//                (zero_i64) zeroes the output z: i64[v.2, v.3] = [n, 4].
//                Region 0's steps: launch 0, shape op 0, launch 1.
//
//   tileModel:   input x: i64[rows, cols] (only its shape matters); output
//                ids: i64[rows, cols] = zero_i64 (one workgroup), then
//                tile_ids over a 2-D grid (format 3.3): axis x over the
//                columns (work dim 1) in tiles of 4, axis y over the rows
//                (work dim 0) in tiles of 2; each element gets the code of
//                the workgroup that covers it (kernels/TestKernels.c). CPU
//                only, or also Vulkan (kernels/vulkan/tile_ids.comp).
//
// Control flow (format 3.2), with the same kernels:
//
//   ifModel:     inputs c: bool[], a, b: f32[n], d: f32[k]; control op 0
//                (If, node 'if_0') yields t = a + b (launch 0 in region 1,
//                the then branch) or d itself (region 2, no step) into r:
//                f32[m]; then y = r + r (launch 1 in region 0) of shape [m]
//   loopModel:   inputs trip: i64[], go: bool[], y0, a: f32[n], z0: f32[k];
//                control op 0 (Loop, node 'loop_0') with tripCount trip,
//                cond go and carried y (initially y0) and z (initially z0):
//                the body (region 1) computes t = y + a (launch 0) and
//                yields [go, t, z, t], so z passes through unchanged and
//                the scan output stacks every t. Results yF: f32[n],
//                zF: f32[zr], scan: f32[s, n]; then (region 0) shape op 0
//                binds sn = s * n and the outputs are y = yF + a,
//                z = zF + zF and scan = scan + scan (viewed as [sn],
//                output shape [s, n])
//   nestedModel: loopModel with an extra input flip: bool[] whose body is
//                control op 1 (If, node 'if_1'): t = y + a (region 2) if
//                flip, else y itself (region 3), into r: f32[n]; the body
//                yields [go, r, z, r]
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TEST_GTEST_TESTARTIFACTS_H
#define TESSEL_TEST_GTEST_TESTARTIFACTS_H

#include "format/Artifact.h"
#include "format/SpirvModules.h"

#include <string>
#include <vector>

namespace tessel::test {

/// Which target binaries an artifact carries.
struct Targets {
  bool cpu = true;
  bool cuda = true; ///< "cuda:sm_80" PTX
  bool rocm = true; ///< "rocm:gfx90a" fake code object
  bool vulkan = true; ///< "vulkan" SPIR-V modules
};

format::Artifact addModel(Targets targets = {});
format::Artifact weightModel(Targets targets = {});
format::Artifact probeModel(Targets targets = {});
format::Artifact reshapeModel(Targets targets = {});
format::Artifact readbackModel(Targets targets = {});
format::Artifact ifModel(Targets targets = {});
format::Artifact loopModel(Targets targets = {});
format::Artifact nestedModel(Targets targets = {});
/// With `vulkan`, the artifact also has a "vulkan" binary with the same
/// grid (workgroups of 256 invocations).
format::Artifact tileModel(bool vulkan = false);
/// What tileModel's output holds at (r, c) for `rows` x `cols`.
int64_t tileCode(int64_t rows, int64_t cols, int64_t r, int64_t c);

/// Appends a binary of `target` to `a` with the launch configs of a 3.2
/// artifact (format::legacyLaunchConfigs) for the kernels and the plan `a`
/// has now: one workgroup per launch on the CPU, the 1-D grid of 256
/// threads per block over all the work on GPUs. Gives the kernels the
/// signatures the plan implies (format::legacyKernelParams).
void addBinary(format::Artifact &a, const std::string &target,
               format::TargetBinary::Format fmt, std::vector<uint8_t> bytes);

/// A shape instruction of `kind` for ONNX node `node` of type `type`.
format::ShapeOp shapeOp(format::ShapeOp::Kind kind, format::Shape operands,
                        format::Shape results, const std::string &node,
                        const std::string &type,
                        const std::string &message = "");

/// The binaries of the test kernels.
std::vector<uint8_t> cpuKernels();
std::vector<uint8_t> cudaKernels();
std::vector<uint8_t> rocmKernels();
/// The SPIR-V modules of kernels/vulkan (add, sum_all, abi_probe, zero_i64,
/// tile_ids), each with its kernel's name as entry point, and their
/// container (format/SpirvModules.h).
std::vector<format::SpirvModule> vulkanModules();
std::vector<uint8_t> vulkanKernels();

/// Paths of the fake GPU libraries (see fakes/).
std::string fakeCudaLibrary();
std::string fakeCudaNoDeviceLibrary();
std::string fakeHipLibrary();
std::string fakeHipNoDeviceLibrary();
/// The tessel-run executable.
std::string tesselRunExecutable();

std::vector<uint8_t> readBytes(const std::string &path);
void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes);

/// Registers "cuda-fake" and "hip-fake" drivers bound to the fake libraries
/// (idempotent).
void registerFakeDrivers();

/// A fresh directory, removed with its contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return dir; }
  std::string file(const std::string &name) const { return dir + "/" + name; }
  /// Names of the entries in the directory, sorted.
  std::vector<std::string> entries() const;

private:
  std::string dir;
};

} // namespace tessel::test

#endif // TESSEL_TEST_GTEST_TESTARTIFACTS_H
