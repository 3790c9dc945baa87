//===- Artifact.h - The .tsl artifact: in-memory model and codec -*- C++ -*-===//
//
// The artifact is the contract between the compiler and the runtime. This
// header holds its in-memory model (what the compiler fills in and the
// runtime reads back) and the codec between that model and the on-disk bytes.
// It depends on the C++ standard library only, so the runtime stays free of
// LLVM/MLIR; the compiler links the same code to write artifacts.
//
// On-disk layout (all integers little-endian; see docs/design.md):
//
//   [0,64)    FileHeader: magic "TESSEL\0\x1a", format version, section table
//             offset/count, total file size, CRC-32 of the manifest and
//             of the section table (which holds a CRC-32 per section).
//   ...       Sections, each aligned to kSectionAlignment (4096) so that the
//             weights section can be memory-mapped in place:
//               manifest  : the binary-encoded plan, signatures and kernels
//               weights   : constant tensors, each aligned to kWeightAlignment
//               binary.*  : one per target (ELF .so, PTX text, hsaco,
//                           SPIR-V modules)
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_ARTIFACT_H
#define TESSEL_RUNTIME_FORMAT_ARTIFACT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel::format {

/// Bumped on any incompatible change of the layout or the manifest encoding.
constexpr uint32_t kFormatVersionMajor = 3;
/// Bumped on compatible additions (readers accept any minor of their major).
constexpr uint32_t kFormatVersionMinor = 6;
constexpr uint64_t kSectionAlignment = 4096;
constexpr uint64_t kWeightAlignment = 64;
/// The longest target name ("cuda:sm_90a", "rocm:gfx90a:xnack-") a section
/// table entry holds.
constexpr size_t kMaxTargetNameLength = 35;
/// Sanity limits enforced by validate(): the rank of any shape, the length of
/// any name, and the extent of any static dimension.
constexpr size_t kMaxRank = 32;
constexpr size_t kMaxNameLength = 4096;
constexpr int64_t kMaxStaticExtent = int64_t(1) << 48;
/// How deep validate() lets control ops nest (region 0 is depth 0, the
/// regions of its control ops depth 1, ...): the runtime recurses once per
/// level.
constexpr size_t kMaxRegionDepth = 64;

/// Element types. The numeric values are ONNX's TensorProto.DataType values so
/// that the frontend, the artifact and the tools speak one vocabulary.
enum class DType : uint32_t {
  F32 = 1,
  U8 = 2,
  I8 = 3,
  U16 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  Bool = 9,
  F16 = 10,
  F64 = 11,
  U32 = 12,
  U64 = 13,
  BF16 = 16,
  // Narrow formats, one element per byte (design.md section 3): the float8
  // and float4 types hold their bit pattern (float4 in the low 4 bits), the
  // sub-byte integers their value (int4/int2 sign-extended into an int8,
  // uint4/uint2 in a uint8). ONNX packs 4- and 2-bit types into bytes only
  // in a TensorProto; the codec there packs and unpacks.
  F8E4M3FN = 17,
  F8E4M3FNUZ = 18,
  F8E5M2 = 19,
  F8E5M2FNUZ = 20,
  U4 = 21,
  I4 = 22,
  F4E2M1 = 23,
  F8E8M0 = 24,
  U2 = 25,
  I2 = 26,
};

/// Size in bytes of one element, or 0 for an unknown dtype.
uint32_t dtypeSize(DType t);
/// Bits per element in ONNX's packed TensorProto storage: 4 for int4, uint4
/// and float4e2m1, 2 for int2 and uint2, 8 * dtypeSize otherwise.
uint32_t dtypePackedBits(DType t);
/// Bytes of `count` elements in ONNX's packed storage (ceil(count * bits / 8)).
uint64_t packedByteSize(DType t, uint64_t count);
/// Unpacks `count` elements of a 4- or 2-bit dtype from ONNX's packed
/// storage (first element in the least significant bits) into one byte
/// each, sign-extending int4/int2; other dtypes are copied.
void unpackElements(DType t, const uint8_t *packed, uint64_t count,
                    uint8_t *out);
/// "float32", "int64", ... (numpy names), or "unknown".
const char *dtypeName(DType t);
/// The dtype a kernel holds elements of `t` as: compiled code has signless
/// integers, so every integer and narrow format of one width is stored as
/// the signed integer of that width (uint8 and float8e4m3fn as int8, uint32
/// as int32); bool and the wider floats are themselves. An unknown dtype
/// is returned unchanged.
DType storageDType(DType t);

/// One dimension of a shape: a static extent (`symbol` empty, `value` >= 0) or
/// a symbolic one (`symbol` names it, e.g. "batch"; `value` is -1). The same
/// symbol in two places always denotes the same extent.
struct Dim {
  int64_t value = 0;
  std::string symbol;
  bool isSymbolic() const { return !symbol.empty(); }
};
using Shape = std::vector<Dim>;

/// A storage buffer of the execution plan.
struct Buffer {
  enum class Kind : uint32_t {
    Input = 0,     ///< bound by the user before a run
    Output = 1,    ///< read by the user after a run
    Weight = 2,    ///< constant, lives in the weights section
    Transient = 3, ///< scratch owned by the runtime for the duration of a run
  };
  Kind kind = Kind::Transient;
  DType dtype = DType::F32;
  Shape shape;               ///< logical shape; bytes = prod(shape) * dtypeSize
  uint64_t weightOffset = 0; ///< Weight only: offset inside the weights section
  uint64_t weightSize = 0;   ///< Weight only: size in bytes
};

/// A named input or output of the model, backed by one buffer.
struct TensorSignature {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  uint32_t buffer = 0;
};

/// One parameter of a kernel: a memref of `rank` dims of elements stored as
/// `dtype` (a storageDType; the kernel ABI passes it as an expanded
/// row-major memref descriptor).
struct KernelParam {
  DType dtype = DType::F32;
  uint32_t rank = 0;
};

/// A kernel of the model, known by the same symbol in every target binary.
struct Kernel {
  std::string
      symbol; ///< entry point: `<symbol>` (GPU) / `<symbol>_packed` (CPU)
  std::string
      onnxNode; ///< name of the ONNX node it implements (for errors, traces)
  std::string onnxOp; ///< ONNX op type, e.g. "Conv"
  /// Its signature (format 3.5), written by the compiler from the kernel
  /// function's arguments: every launch of the kernel passes exactly these,
  /// which validate() checks, so a driver never builds a descriptor of
  /// another rank or element type than the code reads.
  std::vector<KernelParam> params = {};
};

/// One argument of a launch: a view of a buffer with the shape the kernel
/// sees (a Reshape is a view, not a copy). It is passed to the kernel as an
/// expanded row-major memref descriptor; see docs/design.md "Kernel ABI".
struct LaunchArg {
  uint32_t buffer = 0;
  Shape shape;
};

/// One step of the plan: run `kernel` over `args` (inputs first, then outputs).
/// `workSize` holds the extents of the kernel's independent work (its
/// parallel loops); each binary's LaunchConfig for the kernel turns them
/// into the launch's grid of workgroups (workgroupCount()).
struct Launch {
  uint32_t kernel = 0;
  std::vector<LaunchArg> args;
  Shape workSize;
};

/// One instruction of the shape program: the host-side integer arithmetic
/// of the plan (shapes as expressions). The program runs on every run, in
/// order, after the inputs' shapes have bound their symbols; each
/// instruction reads `operands` (static extents or symbols bound before it)
/// and gives one value per entry of `results`. A result that is a symbol not
/// bound yet is bound to the value; a result that is already bound (by an
/// input or an earlier instruction) or static is checked against it, and a
/// mismatch is an error. Every failure is INVALID_ARGUMENT and names
/// `onnxNode`/`onnxOp` (and `message` where set) with the values involved.
struct ShapeOp {
  enum class Kind : uint32_t {
    // Integer arithmetic: results[0] = f(operands[0], operands[1]). Division
    // by zero and overflow are errors, never undefined behaviour.
    Add = 0,
    Sub = 1,
    Mul = 2,
    FloorDiv = 3, ///< floor(a / b)
    CeilDiv = 4,  ///< ceil(a / b)
    Mod = 5,      ///< a - b * floor(a / b)
    Min = 6,
    Max = 7,
    Lt = 8, ///< 1 if a < b else 0 (format 3.1)
    /// results[i] = element i of the host copy of input `input`, which is an
    /// int64 tensor of static shape [results.size()] (or a scalar when there
    /// is one result). No operands.
    InputValues = 16,
    /// results[i] = element i of buffer `buffer`, an int64 buffer of static
    /// shape with results.size() elements that an earlier launch of the
    /// same or an enclosing region wrote, read back from the device when
    /// the step runs (format 3.4: a data-dependent extent, or a shape
    /// operand that kernels compute). No operands. Only in a plan with
    /// regions, where the steps say when it runs.
    BufferValues = 17,
    /// ONNX Reshape: operands = the source dims, then one target value per
    /// result; 0 copies the source dim at its position (a literal 0 when
    /// `allowZero`), one -1 is inferred from the element count, and the
    /// element counts must agree. results[i] = dim i of the reshaped shape.
    Reshape = 32,
    /// operands[0] == operands[1], else an error: the run-time check of an
    /// assumption the compiled code makes (dims that must be equal). No
    /// results.
    CheckEq = 48,
  };
  Kind kind = Kind::CheckEq;
  Shape operands;
  Shape results;
  uint32_t input = 0;     ///< InputValues: index into Artifact::inputs
  uint32_t buffer = 0;    ///< BufferValues: index into Artifact::buffers
  bool allowZero = false; ///< Reshape: ONNX Reshape's allowzero
  std::string onnxNode;   ///< the ONNX node whose shape this computes
  std::string onnxOp;     ///< its op type
  std::string message;    ///< what a failure means ("Add: dim 1 of A and B")
};

/// A buffer the runtime fills on every run, after the shape program, with
/// integers the plan computed on the host (a Slice's bounds or an Expand's
/// shape, when they derive from shapes): element i of int64 buffer `buffer`
/// (Transient, static shape, one element per value) is `values[i]`.
/// Kernels then read them like any tensor. (Format 3.1.)
struct HostValues {
  uint32_t buffer = 0;
  Shape values;
};

/// "No buffer": an absent optional operand of a control op.
constexpr uint32_t kNoBuffer = 0xffffffffu;

/// One step of a region (format 3.2): what the runtime does next.
struct Step {
  enum class Kind : uint32_t {
    Shape = 0,      ///< evaluate shapeProgram[index]
    HostValues = 1, ///< write hostValues[index]
    Launch = 2,     ///< run plan[index]
    Control = 3,    ///< run controlOps[index]
  };
  Kind kind = Kind::Launch;
  uint32_t index = 0;
};

/// A sequence of steps and the tensors it yields (format 3.2). Region 0 is
/// the model's top level (it yields nothing: the outputs are its buffers);
/// the others are the branches of If and the bodies of Loop. A symbol that
/// a step of a region binds is bound from that step until the region ends:
/// on every entry (each iteration of a loop) the region starts from the
/// bindings of its enclosing region.
struct Region {
  std::vector<Step> steps;
  std::vector<LaunchArg> yields; ///< views of buffers, in order
};

/// Structured control flow (format 3.2). Buffers named here are views of
/// the enclosing region's tensors (`operands`), buffers of the body that
/// the runtime fills before each iteration (`bodyArgs`), or buffers of the
/// enclosing region that receive the results (`results`): each symbol of a
/// result buffer's shape is bound, when the op finishes, to the extent of
/// the value it receives, and each static dim is checked against it.
///
///   If:   operands = [cond] (bool, one element); regions = [then, else];
///         no bodyArgs; results[i] = yield i of the branch taken.
///   Loop: operands = [tripCount (int64, one element, or kNoBuffer),
///         cond (bool, one element, or kNoBuffer), initial values of the
///         N loop-carried tensors...]; regions = [body]; bodyArgs =
///         [iteration (int64 scalar), cond (bool scalar), carried...]
///         (each carried buffer's shape symbols bound per iteration to the
///         value it holds); the body yields [cond, N carried, K scan
///         values]; results = [N final carried values, K scan outputs],
///         scan output k being the scan values of every iteration stacked
///         along a new leading axis (every iteration must yield the same
///         shape). ONNX Loop semantics: the body runs while
///         (no tripCount or i < tripCount) and (no cond or cond).
struct ControlOp {
  enum class Kind : uint32_t {
    If = 0,
    Loop = 1,
  };
  Kind kind = Kind::If;
  std::vector<LaunchArg> operands;
  std::vector<uint32_t> regions;
  std::vector<uint32_t> bodyArgs;
  std::vector<uint32_t> results;
  /// Loop: a symbol bound in the body to the iteration number (so that
  /// host shape ops can use it), or empty.
  std::string iterationSymbol;
  std::string onnxNode; ///< the ONNX node it implements (for errors)
  std::string onnxOp;
};

/// One axis of a launch's grid of workgroups (format 3.3): it has
/// ceil(product of the launch's work sizes `dims` / `tile`) workgroups, or
/// exactly 1 when `dims` is empty. `dims` index Launch::workSize, in
/// increasing order, each used by at most one axis of a kernel.
struct WorkgroupAxis {
  std::vector<uint32_t> dims;
  uint64_t tile = 1; ///< > 0
};

/// How one target launches one kernel (format 3.3): the workgroup size the
/// code was compiled for and the workgroup count as a function of the
/// launch's work sizes (axis 0 is x). The kernel finds its part of the work
/// from its workgroup id and count; see docs/design.md "Kernel ABI".
struct LaunchConfig {
  /// Threads of a workgroup along x, y, z: each > 0; 1, 1, 1 on the CPU.
  uint32_t workgroupSize[3] = {1, 1, 1};
  WorkgroupAxis workgroupCount[3];
  /// Dynamic shared (workgroup-local) memory the launch provides, and
  /// scratch per workgroup (not provided by the runtime yet).
  uint64_t sharedMemoryBytes = 0;
  uint64_t scratchBytes = 0;
};

/// Compiled code for one target.
struct TargetBinary {
  enum class Format : uint32_t {
    ElfSharedObject =
        0,     ///< x86-64 ELF .so, kernels exported as `<symbol>_packed`
    Ptx = 1,   ///< PTX text for the CUDA driver JIT
    Hsaco = 2, ///< AMDGPU code object (ELF)
    /// SPIR-V modules for Vulkan, one per kernel (format/SpirvModules.h)
    Spirv = 3,
  };
  /// "cpu:x86-64-v3", "cuda:sm_80", "cuda:sm_90", "rocm:gfx90a", "vulkan",
  /// ... A CPU binary's target is "cpu:" and the variant it was compiled
  /// for (format 3.6; an artifact may hold several, isCpuTarget), or
  /// "cpu" (one binary, the only CPU form before 3.6).
  std::string target;
  Format format = Format::ElfSharedObject;
  std::vector<uint8_t> bytes;
  /// Format 3.3: one per kernel (Artifact::kernels), in order.
  std::vector<LaunchConfig> launchConfigs;
  /// A CPU binary only: the x86-64 extensions its code uses (names of
  /// CpuFeatures.h, e.g. "avx2"); the CPU driver never runs it on a CPU
  /// without one, and picks, among the CPU binaries the host can run, the
  /// one that uses the most (manifest field 9 for "cpu", 15 for "cpu:*").
  std::vector<std::string> cpuFeatures = {};
};

/// Whether `target` names a CPU binary: "cpu" or "cpu:<variant>".
bool isCpuTarget(const std::string &target);

/// The whole artifact.
struct Artifact {
  std::string producer;  ///< e.g. "tessel-compile 0.1"
  std::string modelName; ///< ONNX graph name / file stem
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Launch> plan;
  std::vector<ShapeOp> shapeProgram; ///< evaluated in order on every run
  std::vector<HostValues> hostValues; ///< written after the shape program
  /// Format 3.2: the structured plan. Empty: one implicit region, every
  /// shape instruction, then every host values entry, then every launch, in
  /// order. Otherwise region 0 is the top level and each shape instruction,
  /// host values entry, launch and control op is the step of exactly one
  /// region, each region but 0 belonging to exactly one control op.
  std::vector<Region> regions;
  std::vector<ControlOp> controlOps;
  std::vector<uint8_t>
      weights; ///< the weights section (each weight 64-byte aligned)
  /// Set by deserialize: where the weights section starts in the file and its
  /// size, so that a loader can map it in place instead of copying it.
  uint64_t weightsFileOffset = 0;
  uint64_t weightsFileSize = 0;
  std::vector<TargetBinary> binaries;
};

/// Renders a shape for messages: "[batch, 3, 224, 224]".
std::string formatShape(const Shape &shape);

/// The one region of an artifact without `regions`: every shape
/// instruction, then every host values entry, then every launch.
Region implicitRegion(const Artifact &artifact);

/// Names control op `index` for messages: "control op 2 (ONNX node 'if_0',
/// If)", or "control op 2 (Loop)" when the compiler named no node.
std::string describeControlOp(const ControlOp &op, size_t index);

/// Checks the model invariants that deserialize() enforces on every load:
/// known dtypes, sane shapes, every symbol defined by an input signature or
/// a result of the shape program (an instruction's operands only by the
/// inputs and earlier instructions), every index (buffer, kernel, input) in
/// range, each shape instruction well formed (operand and result counts of
/// its kind; InputValues reading an int64 input of static shape with one
/// value per result; a known kind), signatures consistent with their
/// buffers, weight ranges inside the weights section (`weights`, or
/// `weightsFileSize` bytes when `weights` is empty), unique names.
///
/// Kernel signatures (format 3.5): each param a known dtype of rank at
/// most kMaxRank; every launch passes exactly its kernel's params, each
/// argument a view of the param's rank of a buffer stored as its dtype
/// (storageDType).
///
/// Launch configs (format 3.3, checked by ValidateLaunch.cpp): each binary
/// has one per kernel; workgroup sizes in [1, 1024] with a product of at
/// most 1024, 1, 1, 1 and no shared memory on the CPU; tiles > 0; the dims
/// of an axis strictly increasing, none in two axes, each below the rank
/// of the work size of every launch of the kernel.
///
/// With regions (format 3.2): known step kinds; each shape instruction,
/// host values entry, launch and control op the step of exactly one
/// region; the regions a tree rooted at region 0 (each other region owned
/// by exactly one control op, no cycle, at most kMaxRegionDepth deep);
/// region 0 yielding nothing; each control op well formed for its kind
/// (the operand, region, body argument, result and yield counts of the
/// comment on ControlOp; conditions bool and trip counts int64 of one
/// element of static shape, the iteration and condition body arguments
/// scalars; the dtypes and ranks of a carried value's operand, body
/// argument, yield and result equal, a scan result one rank above its
/// yield; results and body arguments distinct Transient buffers; an If
/// branch yielding a result buffer only at that result's position).
/// Symbols are scoped: walking the regions in step order, every symbol a
/// step reads (shape instruction operands, host values, the shapes of the
/// views and of the buffers a launch, a control op or a yield names) must
/// have been bound in its region or an enclosing one, by an input, a shape
/// instruction, a body argument of the enclosing loop (bound on entry) or
/// the results of an earlier control op (bound when it finishes); the
/// outputs' shapes must be bound at the end of region 0.
///
/// The compiler calls it before serialize() to catch its own bugs early. On
/// failure returns false and sets `error` (e.g. "launch 2 (kernel 'k'):
/// argument 0 refers to buffer 9, but there are 4 buffers").
bool validate(const Artifact &artifact, std::string &error);

/// The launch configs a reader gives the binaries of an artifact without
/// them (format 3.0 to 3.2), so that the runtime has one code path: on the
/// CPU (ElfSharedObject) one workgroup per launch (every axis empty, size
/// 1, 1, 1); on GPUs (Ptx, Hsaco) the 1-D grid those formats implied,
/// workgroup size 256, 1, 1 and axis x over every work dim (0 .. rank-1,
/// the rank of the kernel's first launch; none for a kernel never
/// launched) with tile 256. One per kernel, in order.
std::vector<LaunchConfig> legacyLaunchConfigs(const Artifact &artifact,
                                              TargetBinary::Format format);

/// The signatures a reader gives the kernels of an artifact without them
/// (format 3.0 to 3.4): each kernel's parameters as its first launch passes
/// them (the storage dtype of each argument's buffer and the rank of its
/// view; none for a kernel never launched), so that validate() still holds
/// every other launch of the kernel to the same arity, dtypes and ranks.
void legacyKernelParams(Artifact &artifact);

/// The workgroup count of a launch of `config` over the work sizes `work`
/// (Launch::workSize resolved): count[a] = ceil(product of work[d] for d in
/// axis a's dims / its tile), 1 for an axis without dims. A work size of 0
/// along a used dim gives a count of 0: nothing runs. On failure (a dim
/// past `work`, a negative work size, a zero tile, a product that
/// overflows) returns false and sets `error`.
bool workgroupCount(const LaunchConfig &config,
                    const std::vector<int64_t> &work, uint64_t count[3],
                    std::string &error);

/// Encodes `artifact` into the on-disk bytes. `artifact` must pass
/// validate() (target names are truncated to kMaxTargetNameLength otherwise).
std::vector<uint8_t> serialize(const Artifact &artifact);

/// Decodes and validates `size` bytes at `data`. On failure returns false and
/// sets `error` to a readable reason ("bad magic", "truncated file: ...",
/// "corrupt section 1 ('weights') (CRC mismatch)", ...). Validation covers
/// magic, version, sizes, section bounds, alignment and overlap, the CRCs of
/// the manifest, the section table and every section, zero padding, and
/// then validate() on the model. It never reads outside [data, data+size).
/// With `copyWeights` false, `artifact.weights` stays empty and only
/// weightsFileOffset/weightsFileSize are set (the loader maps them).
bool deserialize(const uint8_t *data, uint64_t size, Artifact &artifact,
                 std::string &error, bool copyWeights = true);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_ARTIFACT_H
