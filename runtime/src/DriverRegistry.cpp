//===- DriverRegistry.cpp - Drivers by name -------------------------------===//
//
// The process-wide table of drivers. The built-in drivers are added on first
// use (explicitly, not through static constructors, which a static library
// would drop); creating a driver is cheap: GPU drivers open their vendor
// library only when first asked for devices.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <mutex>

namespace tessel::runtime {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<Driver>> drivers;
  /// Replaced drivers stay alive: C callers may hold their name pointers.
  std::vector<std::shared_ptr<Driver>> retired;
};

Registry &registry() {
  static Registry *r = [] {
    auto *reg = new Registry; // never destroyed: drivers outlive static dtors
    reg->drivers.push_back(createCpuDriver());
    reg->drivers.push_back(createCudaDriver());
    reg->drivers.push_back(createHipDriver());
    reg->drivers.push_back(createVulkanDriver());
    return reg;
  }();
  return *r;
}

} // namespace

void registerDriver(std::shared_ptr<Driver> driver) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &d : r.drivers)
    if (d->name() == driver->name()) {
      r.retired.push_back(std::move(d));
      d = std::move(driver);
      return;
    }
  r.drivers.push_back(std::move(driver));
}

std::shared_ptr<Driver> findDriver(const std::string &name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &d : r.drivers)
    if (d->name() == name)
      return d;
  return nullptr;
}

std::vector<std::string> driverNames() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (auto &d : r.drivers)
    names.push_back(d->name());
  return names;
}

const char *driverNameAt(size_t index) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return index < r.drivers.size() ? r.drivers[index]->name().c_str() : nullptr;
}

size_t driverCount() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.drivers.size();
}

std::string targetListSuffix(const format::Artifact &artifact) {
  std::string s = " (targets: ";
  for (size_t i = 0; i < artifact.binaries.size(); ++i)
    s += (i ? ", " : "") + artifact.binaries[i].target;
  if (artifact.binaries.empty())
    s += "none";
  return s + ")";
}

} // namespace tessel::runtime
