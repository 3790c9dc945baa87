//===- DynamicLibrary.h - RAII wrapper around dlopen ------------*- C++ -*-===//
//
// Opens a shared library by name (searching the usual paths) and resolves
// symbols from it. The GPU drivers use it for libcuda.so.1 and
// libamdhip64.so, the CPU driver for the kernels of an artifact.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_DYNAMICLIBRARY_H
#define TESSEL_RUNTIME_SRC_DYNAMICLIBRARY_H

#include <string>
#include <vector>

namespace tessel::runtime {

class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary &&other) noexcept
      : handle(other.handle), libraryName(std::move(other.libraryName)) {
    other.handle = nullptr;
  }
  DynamicLibrary &operator=(DynamicLibrary &&other) noexcept;
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;
  ~DynamicLibrary() { close(); }

  /// Opens the first of `names` that loads (RTLD_NOW | RTLD_LOCAL). On
  /// failure returns false and sets `error` to the dlerror() of the first
  /// name ("libcuda.so.1: cannot open shared object file: ...").
  bool open(const std::vector<std::string> &names, std::string &error);

  /// The address of `name`, or null.
  void *symbol(const char *name) const;
  bool isOpen() const { return handle != nullptr; }
  /// The name the library was opened by.
  const std::string &name() const { return libraryName; }
  void close();

private:
  void *handle = nullptr;
  std::string libraryName;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_DYNAMICLIBRARY_H
