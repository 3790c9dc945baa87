/*===- tessel.h - Tessel runtime C API ------------------------------*- C -*-===*\
|*                                                                            *|
|* The stable surface of the runtime: load a compiled artifact (.tsl), pick a *|
|* device, bind inputs, run, read outputs.                                    *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - Every fallible call returns a tessel_status_t: NULL means success;     *|
|*    otherwise the caller owns the status, reads its code and message and   *|
|*    frees it with tessel_status_free. No call throws or aborts.            *|
|*  - Results are returned through the last parameters, named out_*; they    *|
|*    are written only on success.                                           *|
|*  - Every created object is released with its *_release function.          *|
|*    Objects are reference counted internally: a session keeps its artifact *|
|*    and device alive, so they may be released in any order.                *|
|*  - Strings and arrays returned by the API are owned by the object they    *|
|*    come from and stay valid as documented per function.                   *|
|*  - Artifacts and devices may be shared between threads; one session must  *|
|*    be used by one thread at a time.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSEL_TESSEL_H
#define TESSEL_TESSEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TESSEL_API __attribute__((visibility("default")))
#else
#define TESSEL_API
#endif

/// Version of this API; bumped on incompatible changes.
#define TESSEL_API_VERSION 1

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

typedef enum tessel_status_code_e {
  TESSEL_STATUS_OK = 0,
  /// A caller mistake: wrong dtype or shape, bad argument, NULL pointer.
  TESSEL_STATUS_INVALID_ARGUMENT = 1,
  /// A named thing does not exist: file, input, output, driver, device index.
  TESSEL_STATUS_NOT_FOUND = 2,
  /// The artifact is corrupt, of an unsupported version, or inconsistent.
  TESSEL_STATUS_INVALID_ARTIFACT = 3,
  /// No driver library, no device, or no kernels for the device.
  TESSEL_STATUS_UNAVAILABLE = 4,
  /// The call is valid but not now: run before every input is set, an
  /// output read before a run.
  TESSEL_STATUS_FAILED_PRECONDITION = 5,
  /// Out of host or device memory.
  TESSEL_STATUS_RESOURCE_EXHAUSTED = 6,
  /// A driver or kernel failed unexpectedly; a bug, not a user error.
  TESSEL_STATUS_INTERNAL = 7,
  TESSEL_STATUS_MAX_ENUM = 0x7FFFFFFF, ///< not a code
} tessel_status_code_t;

/// An error; NULL is success.
typedef struct tessel_status_s *tessel_status_t;

/// TESSEL_STATUS_OK for NULL.
TESSEL_API tessel_status_code_t tessel_status_code(tessel_status_t status);
/// A readable message ("input 'x': dim 1 is 3, expected 4"); "" for NULL.
/// Valid until the status is freed.
TESSEL_API const char *tessel_status_message(tessel_status_t status);
/// Frees a status; NULL is a no-op.
TESSEL_API void tessel_status_free(tessel_status_t status);
/// "OK", "INVALID_ARGUMENT", ... (static storage).
TESSEL_API const char *tessel_status_code_name(tessel_status_code_t code);

/*===----------------------------------------------------------------------===*
 * Element types (the values are ONNX's TensorProto.DataType)
 *===----------------------------------------------------------------------===*/

typedef enum tessel_dtype_e {
  TESSEL_DTYPE_FLOAT32 = 1,
  TESSEL_DTYPE_UINT8 = 2,
  TESSEL_DTYPE_INT8 = 3,
  TESSEL_DTYPE_UINT16 = 4,
  TESSEL_DTYPE_INT16 = 5,
  TESSEL_DTYPE_INT32 = 6,
  TESSEL_DTYPE_INT64 = 7,
  TESSEL_DTYPE_BOOL = 9,
  TESSEL_DTYPE_FLOAT16 = 10,
  TESSEL_DTYPE_FLOAT64 = 11,
  TESSEL_DTYPE_UINT32 = 12,
  TESSEL_DTYPE_UINT64 = 13,
  TESSEL_DTYPE_BFLOAT16 = 16,
  /* Narrow formats, one element per byte in memory: float8/float4 values as
     their bit pattern (float4 in the low 4 bits), int4/int2 sign-extended
     into an int8, uint4/uint2 in a uint8 (ml_dtypes' layout). */
  TESSEL_DTYPE_FLOAT8E4M3FN = 17,
  TESSEL_DTYPE_FLOAT8E4M3FNUZ = 18,
  TESSEL_DTYPE_FLOAT8E5M2 = 19,
  TESSEL_DTYPE_FLOAT8E5M2FNUZ = 20,
  TESSEL_DTYPE_UINT4 = 21,
  TESSEL_DTYPE_INT4 = 22,
  TESSEL_DTYPE_FLOAT4E2M1 = 23,
  TESSEL_DTYPE_FLOAT8E8M0 = 24,
  TESSEL_DTYPE_UINT2 = 25,
  TESSEL_DTYPE_INT2 = 26,
  /// Not a dtype: makes any 32-bit value representable, so that a caller's
  /// unknown value is reported as an error rather than being undefined.
  TESSEL_DTYPE_MAX_ENUM = 0x7FFFFFFF,
} tessel_dtype_t;

/// Bytes per element; 0 for an unknown dtype.
TESSEL_API size_t tessel_dtype_size(tessel_dtype_t dtype);
/// numpy's name ("float32", "int64", "bfloat16"); "unknown" otherwise.
TESSEL_API const char *tessel_dtype_name(tessel_dtype_t dtype);

/*===----------------------------------------------------------------------===*
 * Artifacts
 *===----------------------------------------------------------------------===*/

typedef struct tessel_artifact_s tessel_artifact_t;

/// Maps the file at `path` and validates it. Weights are used in place from
/// the mapping. Errors name the file: "m.tsl: corrupt manifest (CRC ...)".
TESSEL_API tessel_status_t
tessel_artifact_load_file(const char *path, tessel_artifact_t **out_artifact);
/// Validates `size` bytes at `data` and copies them; `data` may be freed
/// after the call.
TESSEL_API tessel_status_t tessel_artifact_load_memory(
    const void *data, size_t size, tessel_artifact_t **out_artifact);
TESSEL_API void tessel_artifact_release(tessel_artifact_t *artifact);

/// "" when not recorded. Valid while the artifact lives.
TESSEL_API const char *tessel_artifact_model_name(const tessel_artifact_t *a);
TESSEL_API const char *tessel_artifact_producer(const tessel_artifact_t *a);
/// The targets the artifact has kernels for ("cpu", "cuda:sm_90", ...).
TESSEL_API size_t tessel_artifact_target_count(const tessel_artifact_t *a);
/// NULL when `index` is out of range.
TESSEL_API const char *tessel_artifact_target(const tessel_artifact_t *a,
                                              size_t index);

/// An input or output of the model. `dims[i]` is -1 where the dimension is
/// symbolic, and then `dim_symbols[i]` names it ("batch"); `dim_symbols[i]`
/// is NULL for static dims. All pointers stay valid while the artifact lives.
typedef struct tessel_tensor_info_t {
  const char *name;
  tessel_dtype_t dtype;
  size_t rank;
  const int64_t *dims;
  const char *const *dim_symbols;
} tessel_tensor_info_t;

TESSEL_API size_t tessel_artifact_input_count(const tessel_artifact_t *a);
TESSEL_API size_t tessel_artifact_output_count(const tessel_artifact_t *a);
TESSEL_API tessel_status_t tessel_artifact_input_info(
    const tessel_artifact_t *a, size_t index, tessel_tensor_info_t *out_info);
TESSEL_API tessel_status_t tessel_artifact_output_info(
    const tessel_artifact_t *a, size_t index, tessel_tensor_info_t *out_info);
/// NOT_FOUND, listing the inputs, when there is no input called `name`.
TESSEL_API tessel_status_t tessel_artifact_find_input(
    const tessel_artifact_t *a, const char *name, size_t *out_index);
TESSEL_API tessel_status_t tessel_artifact_find_output(
    const tessel_artifact_t *a, const char *name, size_t *out_index);

/*===----------------------------------------------------------------------===*
 * Drivers and devices
 *===----------------------------------------------------------------------===*/

/// The registered drivers: "cpu", "cuda", "hip", "vulkan".
TESSEL_API size_t tessel_driver_count(void);
/// NULL when `index` is out of range.
TESSEL_API const char *tessel_driver_name(size_t index);
/// Number of devices of `driver`; UNAVAILABLE with the reason ("no CUDA
/// driver found (libcuda.so.1: ...)") when there are none.
TESSEL_API tessel_status_t tessel_driver_device_count(const char *driver,
                                                      size_t *out_count);

typedef struct tessel_device_s tessel_device_t;

/// Opens a device: "cpu", "cuda", "cuda:N", "hip", "hip:N", "vulkan",
/// "vulkan:N" (no index means device 0).
TESSEL_API tessel_status_t tessel_device_create(const char *spec,
                                                tessel_device_t **out_device);
TESSEL_API void tessel_device_release(tessel_device_t *device);
/// "cpu", "cuda:0", ... Valid while the device lives.
TESSEL_API const char *tessel_device_name(const tessel_device_t *device);
/// "NVIDIA H200 (sm_90)", ... Valid while the device lives.
TESSEL_API const char *tessel_device_description(const tessel_device_t *device);

/*===----------------------------------------------------------------------===*
 * Sessions
 *===----------------------------------------------------------------------===*/

typedef struct tessel_session_s tessel_session_t;

/// Loads the artifact's kernels for `device` and uploads its weights, with
/// the default options (see tessel_session_create_with_options).
/// UNAVAILABLE when the artifact has no kernels for the device.
TESSEL_API tessel_status_t
tessel_session_create(tessel_artifact_t *artifact, tessel_device_t *device,
                      tessel_session_t **out_session);
TESSEL_API void tessel_session_release(tessel_session_t *session);

/// How a session runs. Fill it with tessel_session_options_init, then set
/// the fields to change: a later version may append fields, and
/// `struct_size` tells it which ones the caller knows.
typedef struct tessel_session_options_t {
  /// sizeof(tessel_session_options_t), as set by tessel_session_options_init.
  size_t struct_size;
  /// The most threads a CPU launch uses: its workgroups are split over the
  /// calling thread and workers of a pool the process's sessions share.
  /// 0 (the default) means the number of cores; at most 256 are used.
  /// Sessions on GPUs ignore it.
  uint32_t threads;
  /// The most iterations one run of an ONNX Loop may take before the run
  /// fails (RESOURCE_EXHAUSTED, naming the Loop): a Loop with neither a
  /// trip count nor a condition, or whose condition never turns false,
  /// would otherwise run forever. 0 (the default) means
  /// TESSEL_DEFAULT_MAX_LOOP_ITERATIONS; UINT64_MAX means no limit.
  /// Added after `threads`: a caller whose struct_size ends before it gets
  /// the default.
  uint64_t max_loop_iterations;
  /// The CPU binary to run, one of the artifact's CPU targets
  /// ("cpu:x86-64-v3"; the "cpu:" may be left out). NULL (the default)
  /// picks, among the CPU binaries this CPU can run, the one whose code
  /// uses the most x86-64 extensions; a named one this CPU cannot run is
  /// UNAVAILABLE, naming what it lacks. Sessions on GPUs ignore it.
  /// Added after `max_loop_iterations`.
  const char *cpu_variant;
} tessel_session_options_t;

/// The Loop iteration limit of a session whose options leave it 0.
#define TESSEL_DEFAULT_MAX_LOOP_ITERATIONS 10000000ull

/// Sets `options` to the defaults (threads 0: the number of cores;
/// max_loop_iterations 0: TESSEL_DEFAULT_MAX_LOOP_ITERATIONS; cpu_variant
/// NULL: the best this CPU runs).
TESSEL_API void tessel_session_options_init(tessel_session_options_t *options);

/// tessel_session_create with `options` (NULL: the defaults).
/// INVALID_ARGUMENT when options->struct_size is smaller than the
/// structure of this version.
TESSEL_API tessel_status_t tessel_session_create_with_options(
    tessel_artifact_t *artifact, tessel_device_t *device,
    const tessel_session_options_t *options, tessel_session_t **out_session);

/// The target of the artifact's binary the session runs: "cpu:x86-64-v3",
/// "cpu:x86-64-v4+avx512bf16+avx512vnni", "cuda:sm_90", ... (for the CPU,
/// which of its variants). Valid while the session lives.
TESSEL_API const char *tessel_session_target(const tessel_session_t *session);

/// Copies `data_bytes` bytes of `data` as input `name` with shape
/// `dims[0..rank)`. Checks the dtype and every dim against the signature and
/// binds its symbolic dims; a symbol bound differently by another input set
/// since the last run (one that succeeded, or failed after checking its
/// inputs) is an error naming both ("symbol 'batch' bound to 2 by input 'a'
/// and 5 by input 'b'"). So a new batch size only needs every input set
/// again; inputs kept from earlier runs are checked by tessel_session_run.
/// On error the previous value of the input stays.
TESSEL_API tessel_status_t tessel_session_set_input(
    tessel_session_t *session, const char *name, tessel_dtype_t dtype,
    size_t rank, const int64_t *dims, const void *data, size_t data_bytes);

/// Like tessel_session_set_input (the same checks, the same symbol
/// binding, the same errors), but without a copy: the session reads `data`
/// in place on every run until the input is set or bound again. The caller
/// keeps the `data_bytes` at `data` alive and unchanged during each run; it
/// may change them between runs, and the next run reads the new values
/// (host memory, any alignment). Runs never write into them: an input whose
/// buffer the artifact's plan writes in place (the compiler never makes
/// such a plan) is copied for each run instead. On devices that are not
/// host-addressable the data is copied to the device at each run, as the
/// copy set_input keeps is.
TESSEL_API tessel_status_t tessel_session_bind_input(
    tessel_session_t *session, const char *name, tessel_dtype_t dtype,
    size_t rank, const int64_t *dims, const void *data, size_t data_bytes);

/// Makes the runs deliver output `name` into the caller's `buffer` of
/// `buffer_bytes` bytes, until it is bound again or unbound (`buffer`
/// NULL); NOT_FOUND for an unknown output. On host-addressable devices
/// (the CPU) the kernels write the output directly into `buffer` when the
/// output owns its buffer and `buffer` overlaps no bound input and no
/// other bound output; otherwise the run copies the output into `buffer`
/// at its end. A run whose output needs more than `buffer_bytes` fails with
/// INVALID_ARGUMENT naming the output and both sizes ("output 'y' needs 24
/// bytes, but its bound buffer has 16"); the buffer's contents are then
/// undefined. After a successful run tessel_session_get_output views
/// `buffer` (the view's data is `buffer`). The caller keeps `buffer` alive
/// and does not touch it during a run.
TESSEL_API tessel_status_t tessel_session_bind_output(tessel_session_t *session,
                                                      const char *name,
                                                      void *buffer,
                                                      size_t buffer_bytes);

/// Runs the plan. FAILED_PRECONDITION, naming it, if an input is not set;
/// INVALID_ARGUMENT if the inputs bind a symbol to different extents, or if
/// an input that holds a target shape (ONNX Reshape's `shape`) has values
/// that do not fit the tensor it reshapes. Such values decide the shapes of
/// the outputs, which tessel_session_get_output reports. CPU kernels keep
/// small temporaries (at most 288 KiB a workgroup) on the stack of the
/// thread that runs them, the calling thread included: call it from a
/// thread with a stack of at least 1 MiB.
TESSEL_API tessel_status_t tessel_session_run(tessel_session_t *session);

/// A tensor owned by the session.
typedef struct tessel_tensor_view_t {
  tessel_dtype_t dtype;
  size_t rank;
  const int64_t *dims;
  const void *data;
  size_t data_bytes;
} tessel_tensor_view_t;

/// The output `name` of the last run, in host memory. The view is valid
/// until the next run or the release of the session; for an output the
/// run delivered into a bound buffer (tessel_session_bind_output), its
/// data is that buffer.
TESSEL_API tessel_status_t
tessel_session_get_output(tessel_session_t *session, const char *name,
                          tessel_tensor_view_t *out_view);
/// Copies the output `name` of the last run into `buffer`; INVALID_ARGUMENT
/// if `buffer_bytes` is smaller than the output.
TESSEL_API tessel_status_t tessel_session_copy_output(tessel_session_t *session,
                                                      const char *name,
                                                      void *buffer,
                                                      size_t buffer_bytes);

/// Per-kernel timing. While enabled, tessel_session_run waits for the
/// device after every launch and records the wall time of each one (launch
/// and execution; the waits make a profiled run slower than a plain one).
/// Disabled by default.
TESSEL_API tessel_status_t tessel_session_set_profiling(tessel_session_t *session,
                                                        int enable);

/// One launch of the plan in the last profiled run: the kernel and the ONNX
/// node it implements (strings owned by the artifact). A launch in a loop
/// body sums the times of every iteration; one in a branch not taken is 0.
typedef struct tessel_launch_time_t {
  const char *kernel;
  const char *onnx_node;
  const char *onnx_op;
  double milliseconds;
} tessel_launch_time_t;

/// The number of launches the last successful run recorded (0 when it was
/// not profiled), and launch `index` of them (INVALID_ARGUMENT out of range).
TESSEL_API size_t
tessel_session_profile_count(const tessel_session_t *session);
TESSEL_API tessel_status_t
tessel_session_profile_entry(const tessel_session_t *session, size_t index,
                             tessel_launch_time_t *out_entry);

/// The transient memory of the last successful run. Without control flow,
/// the plan's intermediate tensors live in one arena: a buffer occupies its
/// bytes only from the first launch that uses it to the last, so buffers
/// whose lifetimes do not meet share memory. `peak_live_bytes` is the most
/// bytes live during one launch, the least any such plan needs;
/// `sum_bytes` what one allocation per buffer would take. Plans with
/// control flow allocate each buffer on its own (all fields 0).
typedef struct tessel_memory_stats_t {
  uint64_t planned_buffers;
  uint64_t arena_bytes;
  uint64_t sum_bytes;
  uint64_t peak_live_bytes;
} tessel_memory_stats_t;

TESSEL_API tessel_status_t
tessel_session_memory_stats(const tessel_session_t *session,
                            tessel_memory_stats_t *out_stats);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // TESSEL_TESSEL_H
