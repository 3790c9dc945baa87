//===- Session.h - Runs an artifact's plan on one device --------*- C++ -*-===//
//
// A session binds an artifact to a device: it loads the kernels, places the
// weights, keeps a copy of each input, and on run() resolves every shape
// from the symbol bindings (the inputs' shapes, then the shape program, which
// may read the inputs' values), (re)allocates the buffers, builds each launch's
// ABI argument array and hands it to the driver. Outputs are read back to host
// memory on demand.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_SESSION_H
#define TESSEL_RUNTIME_SRC_SESSION_H

#include "ArtifactImage.h"
#include "Driver.h"
#include "LaunchParams.h"
#include "SymbolBindings.h"

#include <cstdlib>

namespace tessel::runtime {

/// A 64-byte aligned host allocation.
class HostBuffer {
public:
  /// Allocates at least `bytes` (at least 1); false when out of memory.
  bool allocate(uint64_t bytes);
  uint8_t *data() const { return ptr.get(); }

private:
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> ptr;
};

class Session {
public:
  static Status create(std::shared_ptr<const ArtifactImage> image,
                       std::shared_ptr<Device> device,
                       std::unique_ptr<Session> &out);
  ~Session();

  Status setInput(const std::string &name, format::DType dtype,
                  const int64_t *dims, size_t rank, const void *data,
                  uint64_t bytes);
  Status run();
  /// The output `name` of the last run (see tessel_session_get_output).
  Status getOutput(const std::string &name, tessel_tensor_view_t &view);

  /// Per-launch wall times (see tessel_session_set_profiling).
  void setProfiling(bool enable) { profiling = enable; }
  /// Milliseconds per launch of the last successful run; empty when it was
  /// not profiled.
  const std::vector<double> &launchMilliseconds() const { return launchMs; }
  const format::Artifact &model() const { return image->model(); }

private:
  Session() = default;

  struct Input {
    bool set = false;
    uint64_t setInRun = 0; ///< value of `runs` when it was set
    std::vector<int64_t> dims;
    HostBuffer data;
    uint64_t bytes = 0;
  };
  /// A plan buffer on the device, grown as the bound shapes require.
  struct DeviceBuffer {
    void *ptr = nullptr;
    uint64_t capacity = 0;
    bool owned = false;
    std::vector<int64_t> dims; ///< shape resolved for the current run
  };
  struct Output {
    std::vector<int64_t> dims;
    uint64_t bytes = 0;
    HostBuffer host; ///< read back from the device on first access
    bool fetched = false;
  };

  /// Binds the symbols of the inputs that are set, except `skip`; only of
  /// those set since the last successful run if `freshOnly`.
  Status bindAll(const size_t *skip, bool freshOnly,
                 SymbolBindings &bindings) const;
  /// Runs the artifact's shape program in order (after bindAll), reading
  /// the host copies of the inputs InputValues instructions name.
  Status runShapeProgram(SymbolBindings &bindings) const;
  Status placeBuffers(const SymbolBindings &bindings);
  /// Writes the artifact's host values (integers the shape program
  /// computed, e.g. a Slice's bounds) into their buffers.
  Status writeHostValues(const SymbolBindings &bindings);
  Status ensureCapacity(DeviceBuffer &buffer, uint64_t bytes);
  Status runLaunch(size_t index, const SymbolBindings &bindings);
  std::string describeKernel(uint32_t kernel) const;
  void releaseBuffers();

  std::shared_ptr<const ArtifactImage> image;
  std::shared_ptr<Device> device;
  std::unique_ptr<Executable> executable;
  void *weights = nullptr; ///< the weights section on the device
  bool ownsWeights = false;
  /// Results of the shape program that the plan uses as extents (checked
  /// to be >= 0 after the program, before any launch).
  std::vector<std::string> extentSymbols;
  std::vector<Input> inputs;
  std::vector<DeviceBuffer> buffers;
  /// The host copy of each host-values buffer: a device copies from it
  /// asynchronously, so it lives until the next run.
  std::vector<std::vector<int64_t>> hostValues;
  std::vector<Output> outputs;
  bool hasRun = false;
  uint64_t runs = 0; ///< successful runs so far
  bool profiling = false;
  std::vector<double> launchMs;
  LaunchParams params;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_SESSION_H
