//===- MemoryLibrary.cpp - dlopen a shared object held in memory ----------===//

#include "MemoryLibrary.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tessel::runtime {

namespace {

/// An anonymous file, or an unlinked temporary one; -1 on failure.
int createAnonymousFile(std::string &error) {
#ifdef MFD_CLOEXEC
  int fd = memfd_create("tessel-kernels", MFD_CLOEXEC);
  if (fd >= 0)
    return fd;
#endif
  const char *dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/tessel-kernels-XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  int tmp = mkstemp(buf.data());
  if (tmp < 0) {
    error = std::string("cannot create a file for the kernels: ") +
            std::strerror(errno);
    return -1;
  }
  unlink(buf.data());
  return tmp;
}

bool writeAll(int fd, const uint8_t *data, size_t size) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

} // namespace

MemoryLibrary::~MemoryLibrary() {
  if (handle)
    dlclose(handle);
  if (fd >= 0)
    ::close(fd);
}

bool MemoryLibrary::load(const std::vector<uint8_t> &image,
                         std::string &error) {
  fd = createAnonymousFile(error);
  if (fd < 0)
    return false;
  if (!writeAll(fd, image.data(), image.size())) {
    error = std::string("cannot write the kernels: ") + std::strerror(errno);
    return false;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = reason ? reason : "dlopen failed";
    // dlerror names the /proc path; the user knows the object as "the CPU
    // binary", which the caller says.
    if (error.compare(0, path.size(), path) == 0 &&
        error.size() > path.size() + 2)
      error = error.substr(path.size() + 2);
    return false;
  }
  return true;
}

void *MemoryLibrary::symbol(const std::string &name) const {
  return handle ? dlsym(handle, name.c_str()) : nullptr;
}

} // namespace tessel::runtime
