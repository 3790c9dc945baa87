//===- KernelParams.cpp - Kernel signatures of older artifacts ------------===//
//
// Format 3.5 records each kernel's params (dtype and rank of every memref
// argument) and validate() holds every launch to them. An artifact written
// before 3.5 has none; it gets the signature its first launch of each
// kernel implies, so that the other launches of the kernel are still
// checked against one signature and the runtime has one code path.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"

namespace tessel::format {

void legacyKernelParams(Artifact &artifact) {
  std::vector<bool> seen(artifact.kernels.size());
  for (const Launch &launch : artifact.plan) {
    if (launch.kernel >= seen.size() || seen[launch.kernel])
      continue; // an invalid index is validate()'s to report
    seen[launch.kernel] = true;
    std::vector<KernelParam> &params = artifact.kernels[launch.kernel].params;
    params.clear();
    for (const LaunchArg &arg : launch.args) {
      // An invalid buffer is validate()'s to report; any dtype will do.
      DType dtype = arg.buffer < artifact.buffers.size()
                        ? storageDType(artifact.buffers[arg.buffer].dtype)
                        : DType::F32;
      params.push_back({dtype, static_cast<uint32_t>(arg.shape.size())});
    }
  }
}

} // namespace tessel::format
