//===- MemoryLibrary.h - dlopen a shared object held in memory --*- C++ -*-===//
//
// The CPU binary of an artifact is an ELF shared object inside the .tsl. It
// is written to an anonymous memory file (memfd_create) and opened through
// /proc/self/fd/N, so nothing touches the file system; where memfd_create is
// unavailable it falls back to an unlinked temporary file.
//
// The descriptor stays open while the library is loaded: dlopen identifies
// libraries by path, and a reused /proc/self/fd/N of a closed descriptor
// would make a second load return the first library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_CPU_MEMORYLIBRARY_H
#define TESSEL_RUNTIME_DRIVERS_CPU_MEMORYLIBRARY_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::runtime {

class MemoryLibrary {
public:
  MemoryLibrary() = default;
  MemoryLibrary(const MemoryLibrary &) = delete;
  MemoryLibrary &operator=(const MemoryLibrary &) = delete;
  ~MemoryLibrary();

  /// Loads the shared object in `image`. On failure returns false and sets
  /// `error` (the dlerror() text for a malformed object).
  bool load(const std::vector<uint8_t> &image, std::string &error);
  /// The address of `name`, or null.
  void *symbol(const std::string &name) const;

private:
  void *handle = nullptr;
  int fd = -1;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_DRIVERS_CPU_MEMORYLIBRARY_H
