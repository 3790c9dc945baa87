//===- HipApi.cpp - The HIP runtime API, loaded at run time ---------------===//
//
// The architecture name of a device is only available as the gcnArchName
// field of hipDeviceProp_t, whose layout differs between ROCm releases
// (ROCm 6 renamed the getter hipGetDevicePropertiesR0600 and moved the
// field). deviceArch() therefore fills an oversized zeroed buffer, reads the
// field at its known offset for the getter used and checks that it looks
// like an architecture ("gfx..."), and otherwise scans the buffer for such a
// string. If that fails too it returns "", and the driver falls back to
// trying each ROCm binary of the artifact in turn (hipModuleLoadData rejects
// code objects for another architecture).
//
//===----------------------------------------------------------------------===//

#include "drivers/hip/HipApi.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tessel::runtime::hip {

namespace {

/// offsetof(hipDeviceProp_t, gcnArchName) in ROCm 5.x (sizeof 792) and of
/// hipDeviceProp_tR0600 in ROCm 6.x; the field is char[256].
constexpr size_t kArchOffsetR0000 = 396;
constexpr size_t kArchOffsetR0600 = 1160;
constexpr size_t kArchNameSize = 256;
/// Larger than any known hipDeviceProp_t.
constexpr size_t kPropsBufferSize = 16384;

template <typename Fn>
bool resolve(const DynamicLibrary &lib, Fn &fn, const char *name,
             std::string &error, bool required = true) {
  fn = reinterpret_cast<Fn>(lib.symbol(name));
  if (!fn && required)
    error = lib.name() + " lacks " + name;
  return fn != nullptr || !required;
}

/// The NUL-terminated "gfx<alnum>[:feature...]" at `p`, or "".
std::string archAt(const char *p, size_t room) {
  size_t n = strnlen(p, std::min(room, kArchNameSize));
  if (n < 4 || n == kArchNameSize || std::strncmp(p, "gfx", 3) != 0)
    return "";
  for (size_t i = 3; i < n; ++i) {
    char c = p[i];
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == ':' ||
              c == '+' || c == '-';
    if (!ok)
      return "";
  }
  return std::string(p, n);
}

} // namespace

bool Api::load(const std::vector<std::string> &libraries, std::string &error) {
  if (!library.open(libraries, error))
    return false;
#define TESSEL_HIP_RESOLVE(member, ...)                                        \
  if (!resolve(library, member, #member, error, ##__VA_ARGS__))                \
    return false;
  TESSEL_HIP_RESOLVE(hipInit)
  TESSEL_HIP_RESOLVE(hipGetErrorName)
  TESSEL_HIP_RESOLVE(hipGetErrorString)
  TESSEL_HIP_RESOLVE(hipGetDeviceCount)
  TESSEL_HIP_RESOLVE(hipSetDevice)
  TESSEL_HIP_RESOLVE(hipDeviceGet)
  TESSEL_HIP_RESOLVE(hipDeviceGetName)
  TESSEL_HIP_RESOLVE(hipGetDevicePropertiesR0600, /*required=*/false)
  TESSEL_HIP_RESOLVE(hipGetDeviceProperties, /*required=*/false)
  TESSEL_HIP_RESOLVE(hipModuleLoadData)
  TESSEL_HIP_RESOLVE(hipModuleGetFunction)
  TESSEL_HIP_RESOLVE(hipModuleUnload)
  TESSEL_HIP_RESOLVE(hipMalloc)
  TESSEL_HIP_RESOLVE(hipFree)
  TESSEL_HIP_RESOLVE(hipMemcpyHtoDAsync)
  TESSEL_HIP_RESOLVE(hipMemcpyDtoHAsync)
  TESSEL_HIP_RESOLVE(hipMemcpyDtoDAsync)
  TESSEL_HIP_RESOLVE(hipStreamCreateWithFlags)
  TESSEL_HIP_RESOLVE(hipStreamDestroy)
  TESSEL_HIP_RESOLVE(hipStreamSynchronize)
  TESSEL_HIP_RESOLVE(hipModuleLaunchKernel)
#undef TESSEL_HIP_RESOLVE
  return true;
}

std::string Api::describe(hipError_t result) const {
  const char *name = hipGetErrorName(result);
  const char *text = hipGetErrorString(result);
  std::string s = name ? name : "HIP error " + std::to_string(result);
  if (text && (!name || std::strcmp(name, text) != 0))
    s += std::string(" (") + text + ")";
  return s;
}

std::string Api::deviceArch(int ordinal) const {
  std::vector<char> props(kPropsBufferSize, 0);
  size_t offset;
  if (hipGetDevicePropertiesR0600) {
    if (hipGetDevicePropertiesR0600(props.data(), ordinal) != hipSuccess)
      return "";
    offset = kArchOffsetR0600;
  } else if (hipGetDeviceProperties) {
    if (hipGetDeviceProperties(props.data(), ordinal) != hipSuccess)
      return "";
    offset = kArchOffsetR0000;
  } else {
    return "";
  }
  props.back() = '\0';
  std::string arch = archAt(props.data() + offset, props.size() - offset);
  for (size_t i = 0; arch.empty() && i + 4 < props.size(); ++i)
    if (props[i] == 'g' && (i == 0 || props[i - 1] == '\0'))
      arch = archAt(props.data() + i, props.size() - i);
  return arch;
}

} // namespace tessel::runtime::hip
