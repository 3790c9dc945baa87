//===- CudaTarget.cpp - Choose the CUDA binary for a device ---------------===//

#include "drivers/cuda/CudaTarget.h"

#include "Driver.h"

namespace tessel::runtime::cuda {

bool parseCudaTarget(const std::string &target, int &sm, bool &archSpecific) {
  const std::string prefix = "cuda:sm_";
  if (target.compare(0, prefix.size(), prefix) != 0)
    return false;
  std::string rest = target.substr(prefix.size());
  archSpecific = !rest.empty() && rest.back() == 'a';
  if (archSpecific)
    rest.pop_back();
  if (rest.empty() || rest.size() > 4 ||
      rest.find_first_not_of("0123456789") != std::string::npos)
    return false;
  sm = std::stoi(rest);
  return true;
}

int selectCudaBinary(const format::Artifact &artifact, int sm,
                     std::string &error) {
  int best = -1;
  int bestScore = -1;
  bool anyCuda = false;
  for (size_t i = 0; i < artifact.binaries.size(); ++i) {
    const format::TargetBinary &b = artifact.binaries[i];
    int targetSm;
    bool archSpecific;
    if (b.target.compare(0, 5, "cuda:") == 0)
      anyCuda = true;
    if (!parseCudaTarget(b.target, targetSm, archSpecific) ||
        b.format != format::TargetBinary::Format::Ptx)
      continue;
    // Scores: arch-specific match 3000, exact match 2000, older PTX 1000+sm.
    int score;
    if (targetSm == sm)
      score = archSpecific ? 3000 : 2000;
    else if (targetSm < sm && !archSpecific)
      score = 1000 + targetSm;
    else
      continue;
    if (score > bestScore) {
      best = static_cast<int>(i);
      bestScore = score;
    }
  }
  if (best < 0) {
    error = anyCuda ? "artifact has no kernels for this CUDA device (sm_" +
                          std::to_string(sm) + ")" + targetListSuffix(artifact)
                    : "artifact has no kernels for CUDA" +
                          targetListSuffix(artifact);
  }
  return best;
}

} // namespace tessel::runtime::cuda
