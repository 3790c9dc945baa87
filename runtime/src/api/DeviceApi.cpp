//===- DeviceApi.cpp - C API: drivers and devices -------------------------===//
//
// Device specs are "<driver>" or "<driver>:<index>" ("cpu", "cuda:1").
//
//===----------------------------------------------------------------------===//

#include "Handles.h"

using namespace tessel::runtime;

namespace {

std::string knownDrivers() {
  std::string s;
  for (const std::string &name : driverNames())
    s += (s.empty() ? "" : ", ") + name;
  return s;
}

/// Splits "cuda:1" into ("cuda", 1); a spec without ":<digits>" is index 0.
Status parseSpec(const std::string &spec, std::string &driver,
                 size_t &ordinal) {
  driver = spec;
  ordinal = 0;
  size_t colon = spec.rfind(':');
  if (colon == std::string::npos)
    return Status::ok();
  std::string index = spec.substr(colon + 1);
  if (index.empty() || index.size() > 6 ||
      index.find_first_not_of("0123456789") != std::string::npos)
    return notFound("invalid device '" + spec +
                    "' (expected <driver> or <driver>:<index>)");
  driver = spec.substr(0, colon);
  ordinal = std::stoul(index);
  return Status::ok();
}

Status lookup(const std::string &name, std::shared_ptr<Driver> &out) {
  out = findDriver(name);
  if (!out)
    return notFound("unknown device '" + name +
                    "' (drivers: " + knownDrivers() + ")");
  return Status::ok();
}

Status createDevice(const char *spec, tessel_device_t **out_device) {
  TESSEL_RETURN_IF_ERROR(requireNonNull(spec, "spec"));
  TESSEL_RETURN_IF_ERROR(requireNonNull(out_device, "out_device"));
  std::string name;
  size_t ordinal;
  TESSEL_RETURN_IF_ERROR(parseSpec(spec, name, ordinal));
  std::shared_ptr<Driver> driver;
  TESSEL_RETURN_IF_ERROR(lookup(name, driver));
  size_t count = 0;
  TESSEL_RETURN_IF_ERROR(driver->deviceCount(count));
  if (ordinal >= count)
    return notFound("device '" + std::string(spec) + "' does not exist (" +
                    name + " has " + std::to_string(count) +
                    (count == 1 ? " device)" : " devices)"));
  std::shared_ptr<Device> device;
  TESSEL_RETURN_IF_ERROR(driver->createDevice(ordinal, device));
  *out_device = new tessel_device_t{std::move(device)};
  return Status::ok();
}

} // namespace

extern "C" {

size_t tessel_driver_count(void) {
  try {
    return driverCount();
  } catch (...) {
    return 0;
  }
}

const char *tessel_driver_name(size_t index) {
  try {
    return driverNameAt(index);
  } catch (...) {
    return nullptr;
  }
}

tessel_status_t tessel_driver_device_count(const char *driver,
                                           size_t *out_count) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(driver, "driver"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_count, "out_count"));
    std::shared_ptr<Driver> d;
    TESSEL_RETURN_IF_ERROR(lookup(driver, d));
    size_t count = 0;
    TESSEL_RETURN_IF_ERROR(d->deviceCount(count));
    *out_count = count;
    return Status::ok();
  });
}

tessel_status_t tessel_device_create(const char *spec,
                                     tessel_device_t **out_device) {
  return guarded([&] { return createDevice(spec, out_device); });
}

void tessel_device_release(tessel_device_t *device) { delete device; }

const char *tessel_device_name(const tessel_device_t *device) {
  return device ? device->device->name().c_str() : "";
}

const char *tessel_device_description(const tessel_device_t *device) {
  return device ? device->device->description().c_str() : "";
}

} // extern "C"
