//===- HipTarget.cpp - Choose the ROCm binary for a device ----------------===//

#include "drivers/hip/HipTarget.h"

#include "Driver.h"

#include <algorithm>

namespace tessel::runtime::hip {

namespace {

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos)
      return parts;
    start = colon + 1;
  }
}

} // namespace

std::vector<size_t> rankRocmBinaries(const format::Artifact &artifact,
                                     const std::string &deviceArch,
                                     std::string &error) {
  const std::string prefix = "rocm:";
  std::vector<std::string> device = split(deviceArch);
  std::vector<std::pair<int, size_t>> scored; // (score, index)
  bool anyRocm = false;
  for (size_t i = 0; i < artifact.binaries.size(); ++i) {
    const format::TargetBinary &b = artifact.binaries[i];
    if (b.target.compare(0, prefix.size(), prefix) != 0)
      continue;
    anyRocm = true;
    if (b.format != format::TargetBinary::Format::Hsaco)
      continue;
    std::string arch = b.target.substr(prefix.size());
    if (deviceArch.empty()) {
      scored.push_back({0, i});
      continue;
    }
    std::vector<std::string> target = split(arch);
    if (target[0] != device[0])
      continue;
    bool fits = std::all_of(target.begin() + 1, target.end(),
                            [&](const std::string &feature) {
                              return std::find(device.begin() + 1, device.end(),
                                               feature) != device.end();
                            });
    if (fits)
      scored.push_back({arch == deviceArch ? 2 : 1, i});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](auto &a, auto &b) { return a.first > b.first; });
  std::vector<size_t> ranked;
  for (auto &[score, index] : scored)
    ranked.push_back(index);
  if (ranked.empty())
    error = anyRocm ? "artifact has no kernels for this HIP device (" +
                          deviceArch + ")" + targetListSuffix(artifact)
                    : "artifact has no kernels for HIP" +
                          targetListSuffix(artifact);
  return ranked;
}

} // namespace tessel::runtime::hip
