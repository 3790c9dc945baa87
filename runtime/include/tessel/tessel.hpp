//===- tessel.hpp - C++ convenience wrapper of the C API --------*- C++ -*-===//
//
// Header-only RAII handles over tessel.h. Calls return a tessel::Status
// (an owning wrapper of tessel_status_t, true when ok); nothing throws.
//
//   tessel::Artifact artifact;
//   if (tessel::Status s = tessel::Artifact::load("m.tsl", artifact); !s)
//     std::cerr << s.message() << "\n";
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TESSEL_HPP
#define TESSEL_TESSEL_HPP

#include "tessel/tessel.h"

#include <memory>
#include <string>
#include <vector>

namespace tessel {

/// Owns a tessel_status_t; empty (and true) on success.
class Status {
public:
  Status() = default;
  /*implicit*/ Status(tessel_status_t s) : status(s, &tessel_status_free) {}

  explicit operator bool() const { return status == nullptr; }
  bool ok() const { return status == nullptr; }
  tessel_status_code_t code() const { return tessel_status_code(status.get()); }
  std::string message() const { return tessel_status_message(status.get()); }

private:
  std::unique_ptr<tessel_status_s, void (*)(tessel_status_t)> status{
      nullptr, &tessel_status_free};
};

namespace detail {
template <typename T, void (*Release)(T *)> struct Releaser {
  void operator()(T *p) const { Release(p); }
};
} // namespace detail

class Artifact {
public:
  static Status load(const std::string &path, Artifact &out) {
    tessel_artifact_t *a = nullptr;
    Status s = tessel_artifact_load_file(path.c_str(), &a);
    if (s)
      out.handle.reset(a);
    return s;
  }
  static Status loadMemory(const void *data, size_t size, Artifact &out) {
    tessel_artifact_t *a = nullptr;
    Status s = tessel_artifact_load_memory(data, size, &a);
    if (s)
      out.handle.reset(a);
    return s;
  }

  tessel_artifact_t *get() const { return handle.get(); }
  std::vector<tessel_tensor_info_t> inputs() const {
    return infos(tessel_artifact_input_count(get()),
                 tessel_artifact_input_info);
  }
  std::vector<tessel_tensor_info_t> outputs() const {
    return infos(tessel_artifact_output_count(get()),
                 tessel_artifact_output_info);
  }
  std::vector<std::string> targets() const {
    std::vector<std::string> t;
    for (size_t i = 0; i < tessel_artifact_target_count(get()); ++i)
      t.push_back(tessel_artifact_target(get(), i));
    return t;
  }

private:
  template <typename F>
  std::vector<tessel_tensor_info_t> infos(size_t n, F get_info) const {
    std::vector<tessel_tensor_info_t> v(n);
    for (size_t i = 0; i < n; ++i)
      Status(get_info(get(), i, &v[i]));
    return v;
  }
  std::unique_ptr<tessel_artifact_t,
                  detail::Releaser<tessel_artifact_t, tessel_artifact_release>>
      handle;
};

class Device {
public:
  static Status create(const std::string &spec, Device &out) {
    tessel_device_t *d = nullptr;
    Status s = tessel_device_create(spec.c_str(), &d);
    if (s)
      out.handle.reset(d);
    return s;
  }
  tessel_device_t *get() const { return handle.get(); }
  std::string name() const { return tessel_device_name(get()); }
  std::string description() const { return tessel_device_description(get()); }

private:
  std::unique_ptr<tessel_device_t,
                  detail::Releaser<tessel_device_t, tessel_device_release>>
      handle;
};

class Session {
public:
  static Status create(const Artifact &artifact, const Device &device,
                       Session &out) {
    tessel_session_t *s = nullptr;
    Status status = tessel_session_create(artifact.get(), device.get(), &s);
    if (status)
      out.handle.reset(s);
    return status;
  }
  /// With `options` (from tessel_session_options_init).
  static Status create(const Artifact &artifact, const Device &device,
                       const tessel_session_options_t &options, Session &out) {
    tessel_session_t *s = nullptr;
    Status status = tessel_session_create_with_options(
        artifact.get(), device.get(), &options, &s);
    if (status)
      out.handle.reset(s);
    return status;
  }
  tessel_session_t *get() const { return handle.get(); }
  /// The binary it runs: "cpu:x86-64-v3", "cuda:sm_90", ...
  std::string target() const { return tessel_session_target(get()); }

  Status setInput(const std::string &name, tessel_dtype_t dtype,
                  const std::vector<int64_t> &dims, const void *data,
                  size_t bytes) {
    return tessel_session_set_input(get(), name.c_str(), dtype, dims.size(),
                                    dims.data(), data, bytes);
  }
  /// tessel_session_bind_input: `data` is read in place on every run.
  Status bindInput(const std::string &name, tessel_dtype_t dtype,
                   const std::vector<int64_t> &dims, const void *data,
                   size_t bytes) {
    return tessel_session_bind_input(get(), name.c_str(), dtype, dims.size(),
                                     dims.data(), data, bytes);
  }
  /// tessel_session_bind_output; a null `buffer` unbinds.
  Status bindOutput(const std::string &name, void *buffer, size_t bytes) {
    return tessel_session_bind_output(get(), name.c_str(), buffer, bytes);
  }
  Status unbindOutput(const std::string &name) {
    return tessel_session_bind_output(get(), name.c_str(), nullptr, 0);
  }
  Status run() { return tessel_session_run(get()); }
  Status output(const std::string &name, tessel_tensor_view_t &view) {
    return tessel_session_get_output(get(), name.c_str(), &view);
  }
  Status setProfiling(bool enable) {
    return tessel_session_set_profiling(get(), enable ? 1 : 0);
  }
  /// The launches of the last profiled run (empty when it was not).
  std::vector<tessel_launch_time_t> profile() const {
    std::vector<tessel_launch_time_t> entries(
        tessel_session_profile_count(get()));
    for (size_t i = 0; i < entries.size(); ++i)
      tessel_session_profile_entry(get(), i, &entries[i]);
    return entries;
  }

  /// The transient memory of the last successful run.
  tessel_memory_stats_t memoryStats() const {
    tessel_memory_stats_t stats{};
    tessel_session_memory_stats(get(), &stats);
    return stats;
  }

private:
  std::unique_ptr<tessel_session_t,
                  detail::Releaser<tessel_session_t, tessel_session_release>>
      handle;
};

} // namespace tessel

#endif // TESSEL_TESSEL_HPP
