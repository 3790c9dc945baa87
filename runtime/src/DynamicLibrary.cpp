//===- DynamicLibrary.cpp - RAII wrapper around dlopen --------------------===//

#include "DynamicLibrary.h"

#include <dlfcn.h>

namespace tessel::runtime {

DynamicLibrary &DynamicLibrary::operator=(DynamicLibrary &&other) noexcept {
  if (this != &other) {
    close();
    handle = other.handle;
    libraryName = std::move(other.libraryName);
    other.handle = nullptr;
  }
  return *this;
}

bool DynamicLibrary::open(const std::vector<std::string> &names,
                          std::string &error) {
  close();
  error.clear();
  for (const std::string &name : names) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      libraryName = name;
      return true;
    }
    const char *reason = dlerror();
    if (error.empty())
      error = reason ? reason : name + ": cannot be loaded";
  }
  if (error.empty())
    error = "no library name given";
  return false;
}

void *DynamicLibrary::symbol(const char *name) const {
  return handle ? dlsym(handle, name) : nullptr;
}

void DynamicLibrary::close() {
  if (handle)
    dlclose(handle);
  handle = nullptr;
}

} // namespace tessel::runtime
