//===- CpuVariants.cpp - Which CPU binary of an artifact runs here --------===//

#include "drivers/cpu/CpuVariants.h"

#include "Driver.h"
#include "format/CpuFeatures.h"

namespace tessel::runtime {

HostFeatureQuery hostCpuFeatures() {
  return [](const std::string &name, bool &known) {
    __builtin_cpu_init();
    known = true;
#define TESSEL_CHECK_FEATURE(feature)                                          \
  if (name == feature)                                                         \
    return __builtin_cpu_supports(feature) != 0;
    TESSEL_X86_FEATURES(TESSEL_CHECK_FEATURE)
#undef TESSEL_CHECK_FEATURE
    known = false;
    return false;
  };
}

namespace {

/// The features of `binary` that `host` lacks, comma-separated ("" when it
/// has them all); INVALID_ARTIFACT for a name the runtime does not know.
Status missingFeatures(const format::TargetBinary &binary,
                       const HostFeatureQuery &host, std::string &missing) {
  missing.clear();
  for (const std::string &f : binary.cpuFeatures) {
    bool known = false;
    bool has = host(f, known);
    if (!known)
      return invalidArtifact("the CPU binary '" + binary.target +
                             "' needs the CPU feature '" + f +
                             "', which this runtime does not know");
    if (!has)
      missing += (missing.empty() ? "" : ", ") + f;
  }
  return Status::ok();
}

} // namespace

Status selectCpuBinary(const format::Artifact &artifact,
                       const std::string &requested,
                       const HostFeatureQuery &host,
                       const format::TargetBinary *&out) {
  out = nullptr;
  std::string wanted = requested;
  if (!wanted.empty() && !format::isCpuTarget(wanted))
    wanted = "cpu:" + wanted;
  std::string refused, names;
  size_t cpuBinaries = 0;
  for (const format::TargetBinary &b : artifact.binaries) {
    if (!format::isCpuTarget(b.target))
      continue;
    ++cpuBinaries;
    names += (names.empty() ? "'" : ", '") + b.target + "'";
    if (!wanted.empty() && b.target != wanted)
      continue;
    std::string missing;
    TESSEL_RETURN_IF_ERROR(missingFeatures(b, host, missing));
    if (!missing.empty()) {
      refused += (refused.empty() ? "" : "; ") + b.target + " needs " +
                 missing;
      continue;
    }
    if (!out || b.cpuFeatures.size() > out->cpuFeatures.size())
      out = &b;
  }
  if (out)
    return Status::ok();
  if (cpuBinaries == 0)
    return unavailable("artifact has no kernels for the CPU" +
                       targetListSuffix(artifact));
  if (refused.empty())
    return unavailable("the artifact has no CPU binary '" + wanted +
                       "' (it has " + names + ")");
  return unavailable(
      "this CPU lacks x86-64 extensions that the artifact's CPU code "
      "needs (" + refused + "): compile for it with tessel-compile "
      "--mcpu native, or for any x86-64 CPU with --mcpu x86-64-v2");
}

} // namespace tessel::runtime
