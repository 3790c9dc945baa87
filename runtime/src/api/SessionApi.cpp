//===- SessionApi.cpp - C API: sessions -----------------------------------===//

#include "Handles.h"

#include <cstddef>
#include <cstring>

using namespace tessel::runtime;

extern "C" {

void tessel_session_options_init(tessel_session_options_t *options) {
  if (!options)
    return;
  *options = tessel_session_options_t();
  options->struct_size = sizeof(tessel_session_options_t);
  options->threads = 0;
  options->max_loop_iterations = 0;
  options->cpu_variant = nullptr;
}

tessel_status_t
tessel_session_create_with_options(tessel_artifact_t *artifact,
                                   tessel_device_t *device,
                                   const tessel_session_options_t *options,
                                   tessel_session_t **out_session) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(artifact, "artifact"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(device, "device"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_session, "out_session"));
    SessionOptions sessionOptions;
    if (options) {
      // A larger struct comes from a newer caller: its fields past ours
      // are unknown here, and ignored. A smaller one from an older caller
      // (down to the first version, which ended after `threads`) leaves
      // the later fields at their defaults.
      constexpr size_t firstVersion =
          offsetof(tessel_session_options_t, max_loop_iterations);
      if (options->struct_size < firstVersion)
        return invalidArgument(
            "options->struct_size is " + std::to_string(options->struct_size) +
            ", less than the " + std::to_string(firstVersion) +
            " bytes of the first tessel_session_options_t (call "
            "tessel_session_options_init first)");
      sessionOptions.threads = options->threads;
      if (options->struct_size >=
          offsetof(tessel_session_options_t, max_loop_iterations) +
              sizeof(uint64_t))
        sessionOptions.maxLoopIterations = options->max_loop_iterations;
      if (options->struct_size >=
              offsetof(tessel_session_options_t, cpu_variant) +
                  sizeof(const char *) &&
          options->cpu_variant)
        sessionOptions.cpuVariant = options->cpu_variant;
    }
    std::unique_ptr<Session> session;
    TESSEL_RETURN_IF_ERROR(Session::create(artifact->image, device->device,
                                           sessionOptions, session));
    *out_session = new tessel_session_t{std::move(session)};
    return Status::ok();
  });
}

tessel_status_t tessel_session_create(tessel_artifact_t *artifact,
                                      tessel_device_t *device,
                                      tessel_session_t **out_session) {
  return tessel_session_create_with_options(artifact, device, nullptr,
                                            out_session);
}

void tessel_session_release(tessel_session_t *session) { delete session; }

const char *tessel_session_target(const tessel_session_t *session) {
  return session ? session->session->target().c_str() : nullptr;
}

tessel_status_t tessel_session_set_input(tessel_session_t *session,
                                         const char *name, tessel_dtype_t dtype,
                                         size_t rank, const int64_t *dims,
                                         const void *data, size_t data_bytes) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
    return session->session->setInput(name,
                                      static_cast<tessel::format::DType>(dtype),
                                      dims, rank, data, data_bytes);
  });
}

tessel_status_t tessel_session_bind_input(tessel_session_t *session,
                                          const char *name,
                                          tessel_dtype_t dtype, size_t rank,
                                          const int64_t *dims, const void *data,
                                          size_t data_bytes) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
    return session->session->setInput(
        name, static_cast<tessel::format::DType>(dtype), dims, rank, data,
        data_bytes, /*inPlace=*/true);
  });
}

tessel_status_t tessel_session_bind_output(tessel_session_t *session,
                                           const char *name, void *buffer,
                                           size_t buffer_bytes) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
    return session->session->bindOutput(name, buffer, buffer_bytes);
  });
}

tessel_status_t tessel_session_run(tessel_session_t *session) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    return session->session->run();
  });
}

tessel_status_t tessel_session_get_output(tessel_session_t *session,
                                          const char *name,
                                          tessel_tensor_view_t *out_view) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_view, "out_view"));
    return session->session->getOutput(name, *out_view);
  });
}

tessel_status_t tessel_session_copy_output(tessel_session_t *session,
                                           const char *name, void *buffer,
                                           size_t buffer_bytes) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
    tessel_tensor_view_t view;
    TESSEL_RETURN_IF_ERROR(session->session->getOutput(name, view));
    if (buffer_bytes < view.data_bytes)
      return invalidArgument("output '" + std::string(name) + "' has " +
                             std::to_string(view.data_bytes) +
                             " bytes, the buffer only " +
                             std::to_string(buffer_bytes));
    if (view.data_bytes) {
      TESSEL_RETURN_IF_ERROR(requireNonNull(buffer, "buffer"));
      std::memcpy(buffer, view.data, view.data_bytes);
    }
    return Status::ok();
  });
}

tessel_status_t tessel_session_set_profiling(tessel_session_t *session,
                                             int enable) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    session->session->setProfiling(enable != 0);
    return Status::ok();
  });
}

size_t tessel_session_profile_count(const tessel_session_t *session) {
  return session ? session->session->launchMilliseconds().size() : 0;
}

tessel_status_t tessel_session_profile_entry(const tessel_session_t *session,
                                             size_t index,
                                             tessel_launch_time_t *out_entry) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_entry, "out_entry"));
    const Session &s = *session->session;
    const std::vector<double> &times = s.launchMilliseconds();
    if (index >= times.size())
      return invalidArgument("profile entry " + std::to_string(index) +
                             " of " + std::to_string(times.size()));
    const tessel::format::Kernel &k =
        s.model().kernels[s.model().plan[index].kernel];
    out_entry->kernel = k.symbol.c_str();
    out_entry->onnx_node = k.onnxNode.c_str();
    out_entry->onnx_op = k.onnxOp.c_str();
    out_entry->milliseconds = times[index];
    return Status::ok();
  });
}

tessel_status_t tessel_session_memory_stats(const tessel_session_t *session,
                                            tessel_memory_stats_t *out_stats) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(session, "session"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_stats, "out_stats"));
    const Session &s = *session->session;
    const tessel::format::ArenaPlan &plan = s.arenaPlan();
    *out_stats = {s.arenaBuffers(), plan.arena, plan.sum, plan.peakLive};
    return Status::ok();
  });
}

} // extern "C"
