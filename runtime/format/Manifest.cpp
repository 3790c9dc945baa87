//===- Manifest.cpp - Binary encoding of the artifact's manifest ----------===//
//
// Encoder and bounds-checked decoder of the manifest: a sequence of tagged
// fields, each
//
//   u32 tag, u64 byteLength, payload (byteLength bytes)
//
// Bit 31 of a tag (kRequired) marks a field a reader must understand; the
// low 31 bits name it:
//
//   tag         field         payload
//   1           producer      string
//   2           modelName     string
//   3 | req     inputs        list<Signature>
//   4 | req     outputs       list<Signature>
//   5 | req     buffers       list<Buffer>
//   6 | req     kernels       list<Kernel>
//   7 | req     plan          list<Launch>
//   8 | req     shapeProgram  list<ShapeOp>
//   9 | req     cpuFeatures   list<string>
//   10 | req    hostValues    list<HostValues>          (3.1; only when any)
//   11 | req    regions       list<Region>              (3.2; only when any)
//   12 | req    controlOps    list<ControlOp>           (3.2; only when any)
//   13 | req    launchConfigs list<(string target,        (3.3; whenever
//                                   list<LaunchConfig>)>   there are binaries)
//   14 | req    kernelParams  list<list<(u32 dtype,       (3.5; whenever
//                                        u32 rank)>>      there are kernels)
//   15 | req    cpuVariants   list<(string target,        (3.6; whenever
//                                   list<string>)>         there is a
//                                                          "cpu:*" binary)
//
//   Signature = string name, u32 dtype, Shape shape, u32 buffer
//   Buffer    = u32 kind, u32 dtype, Shape shape, u64 weightOffset,
//               u64 weightSize
//   Kernel    = string symbol, string onnxNode, string onnxOp
//   Launch    = u32 kernel, list<(u32 buffer, Shape shape)> args,
//               Shape workSize
//   ShapeOp   = u32 kind, Shape operands, Shape results, u32 source
//               (InputValues: the input; BufferValues (3.4): the buffer;
//               else 0), u8 allowZero (0 or 1), string onnxNode,
//               string onnxOp, string message
//   HostValues = u32 buffer, Shape values
//   Region    = list<Step> steps, list<(u32 buffer, Shape shape)> yields
//   Step      = u32 kind, u32 index
//   ControlOp = u32 kind, list<(u32 buffer, Shape shape)> operands,
//               list<u32> regions, list<u32> bodyArgs, list<u32> results,
//               string iterationSymbol, string onnxNode, string onnxOp
//   LaunchConfig = u32 workgroupSize[3], 3 x (list<u32> dims, u64 tile),
//               u64 sharedMemoryBytes, u64 scratchBytes
//   Shape     = list<Dim>;  Dim = u8 0, i64 extent | u8 1, string symbol
//   list<T>   = u32 count, T...;  string = u32 byteLength, bytes
//
// How the format grows: a later minor version adds a field under a new tag.
// A reader skips a field it does not know unless its tag has kRequired set;
// then it rejects the artifact ("... the artifact needs a newer runtime").
// A writer marks a new field required exactly when ignoring it would make
// the runtime compute something wrong. Each known payload must be consumed
// exactly, a field may appear once, and fields 3-9 must be present (fields
// 10-12 are written only when they have content, so an artifact that does
// not use them stays readable by older runtimes of its major version). The
// writer emits the fields in tag order; the reader accepts any order.
//
// Field 13 holds one entry per binary section, matched by target name (the
// binaries themselves are sections, decoded after the manifest; see
// Artifact.cpp). It is written whenever there is a binary: a runtime that
// ignored it would launch the kernels over the wrong grid. A manifest
// without it (format 3.0-3.2) gets legacyLaunchConfigs().
//
// Field 14 holds each kernel's signature, one list per kernel in kernel
// order (format 3.5). A runtime that ignored it would build descriptors
// from the launches alone, which is what it is there to check; a manifest
// without it (format 3.0-3.4) gets legacyKernelParams().
//
// Fields 9 and 15 hold the x86-64 features of the CPU binaries: field 9
// those of the binary named "cpu" (the one CPU binary of formats 3.0-3.5;
// empty when there is none), field 15 those of each "cpu:<variant>" binary
// (3.6), one entry per such binary. A runtime that ignored field 15 could
// run code its CPU lacks the instructions for.
//
// The decoder names the element it was reading when the bytes run out.
//
//===----------------------------------------------------------------------===//

#include "format/Manifest.h"

#include "format/ByteIO.h"

#include <cstdio>

namespace tessel::format {

namespace {

constexpr uint8_t kStaticDim = 0;
constexpr uint8_t kSymbolicDim = 1;

/// Bit 31 of a tag: a reader that does not know the field must reject it.
constexpr uint32_t kRequired = 0x80000000u;

/// The fields of format 3.x (the low 31 bits of their tags).
enum Field : uint32_t {
  kProducer = 1,
  kModelName = 2,
  kInputs = 3,
  kOutputs = 4,
  kBuffers = 5,
  kKernels = 6,
  kPlan = 7,
  kShapeProgram = 8,
  kCpuFeatures = 9,
  kHostValues = 10, ///< 3.1
  kRegions = 11,    ///< 3.2
  kControlOps = 12, ///< 3.2
  kLaunchConfigs = 13, ///< 3.3
  kKernelParams = 14,  ///< 3.5
  kCpuVariants = 15,   ///< 3.6
  kNumFields,
};

const char *fieldName(uint32_t id) {
  static const char *const names[] = {
      "",           "producer", "modelName", "inputs",       "outputs",
      "buffers",    "kernels",  "plan",      "shapeProgram", "cpuFeatures",
      "hostValues", "regions",  "controlOps", "launchConfigs",
      "kernelParams", "cpuVariants"};
  return id < kNumFields ? names[id] : "unknown";
}

/// Whether a reader must understand field `id` (its tag has kRequired).
bool isRequired(uint32_t id) { return id >= kInputs && id < kNumFields; }
/// Whether field `id` must be present: those of format 3.0.
bool mustBePresent(uint32_t id) { return id >= kInputs && id <= kCpuFeatures; }

std::string hexTag(uint32_t tag) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", tag);
  return buf;
}

//===----------------------------------------------------------------------===//
// Encoder
//===----------------------------------------------------------------------===//

void writeShape(ByteWriter &w, const Shape &shape) {
  w.u32(static_cast<uint32_t>(shape.size()));
  for (const Dim &d : shape) {
    if (d.isSymbolic()) {
      w.u8(kSymbolicDim);
      w.string(d.symbol);
    } else {
      w.u8(kStaticDim);
      w.i64(d.value);
    }
  }
}

void writeSignatures(ByteWriter &w, const std::vector<TensorSignature> &sigs) {
  w.u32(static_cast<uint32_t>(sigs.size()));
  for (const TensorSignature &s : sigs) {
    w.string(s.name);
    w.u32(static_cast<uint32_t>(s.dtype));
    writeShape(w, s.shape);
    w.u32(s.buffer);
  }
}

/// A list of views: u32 count, then (u32 buffer, Shape shape) each.
void writeViews(ByteWriter &w, const std::vector<LaunchArg> &views) {
  w.u32(static_cast<uint32_t>(views.size()));
  for (const LaunchArg &view : views) {
    w.u32(view.buffer);
    writeShape(w, view.shape);
  }
}

void writeIndices(ByteWriter &w, const std::vector<uint32_t> &indices) {
  w.u32(static_cast<uint32_t>(indices.size()));
  for (uint32_t index : indices)
    w.u32(index);
}

/// Writes one field: its tag, a length patched in afterwards, the payload.
template <typename F> void writeField(ByteWriter &w, uint32_t id, F &&payload) {
  w.u32(isRequired(id) ? id | kRequired : id);
  size_t lengthAt = w.size();
  w.u64(0);
  size_t begin = w.size();
  payload();
  w.patchU64(lengthAt, static_cast<uint64_t>(w.size() - begin));
}

//===----------------------------------------------------------------------===//
// Decoder
//===----------------------------------------------------------------------===//

/// Reads the manifest; `where` names the element being read for errors.
class Decoder {
public:
  Decoder(const uint8_t *data, uint64_t size, ManifestExtras &extras)
      : data(data), r(data, size), extras(extras) {}

  bool decode(Artifact &a) {
    bool seen[kNumFields] = {};
    for (uint32_t index = 0; !r.atEnd(); ++index) {
      uint32_t tag = 0;
      uint64_t length = 0;
      where = "the header of field " + std::to_string(index);
      if (!u32(tag) || !u64(length))
        return false;
      uint32_t id = tag & ~kRequired;
      if (length > r.remaining()) {
        error = "manifest is truncated or corrupt (field " + hexTag(tag) +
                " has " + std::to_string(length) + " bytes, but only " +
                std::to_string(r.remaining()) + " are left)";
        return false;
      }
      uint64_t begin = r.offset();
      if (id == 0 || id >= kNumFields) {
        if (tag & kRequired) {
          error = "manifest field " + hexTag(tag) +
                  " is required but unknown to this runtime (format " +
                  std::to_string(kFormatVersionMajor) + "." +
                  std::to_string(kFormatVersionMinor) +
                  "): the artifact needs a newer runtime";
          return false;
        }
        r.skip(length); // an optional field of a newer minor version
        continue;
      }
      std::string name = std::string("field ") + std::to_string(id) + " (" +
                         fieldName(id) + ")";
      if (seen[id]) {
        error = "manifest " + name + " appears more than once";
        return false;
      }
      seen[id] = true;
      // The payload is read from its own bounded reader so that it can
      // neither run into the next field nor stop short of its end.
      ByteReader outer = r;
      r = ByteReader(data + begin, length);
      bool ok = field(id, a);
      bool exact = r.atEnd();
      uint64_t left = r.remaining();
      r = outer;
      if (!ok)
        return false;
      if (!exact) {
        error = "manifest " + name + " has " + std::to_string(left) +
                " unexpected trailing bytes";
        return false;
      }
      r.skip(length);
    }
    for (uint32_t id = 1; id < kNumFields; ++id)
      if (mustBePresent(id) && !seen[id]) {
        error = "manifest lacks the required field " + std::to_string(id) +
                " (" + fieldName(id) + ")";
        return false;
      }
    if (seen[kKernelParams]) {
      // Fields come in any order: the kernels may follow their params.
      if (params.size() != a.kernels.size()) {
        error = "manifest field 14 (kernelParams) has " +
                std::to_string(params.size()) + " entries for " +
                std::to_string(a.kernels.size()) +
                " kernels (one per kernel)";
        return false;
      }
      for (size_t k = 0; k < params.size(); ++k)
        a.kernels[k].params = std::move(params[k]);
      extras.kernelParams = true;
    }
    return true;
  }

  std::string error;

private:
  bool field(uint32_t id, Artifact &a) {
    switch (id) {
    case kProducer:
      where = "the producer";
      return str(a.producer);
    case kModelName:
      where = "the model name";
      return str(a.modelName);
    case kInputs:
      return signatures(a.inputs, "input");
    case kOutputs:
      return signatures(a.outputs, "output");
    case kBuffers:
      return buffers(a.buffers);
    case kKernels:
      return kernels(a.kernels);
    case kPlan:
      return plan(a.plan);
    case kShapeProgram:
      return shapeProgram(a.shapeProgram);
    case kCpuFeatures:
      where = "the CPU features";
      return strings(extras.cpuFeatures);
    case kHostValues:
      return hostValues(a.hostValues);
    case kRegions:
      return regions(a.regions);
    case kControlOps:
      return controlOps(a.controlOps);
    case kLaunchConfigs:
      extras.launchConfigs.present = true;
      return launchConfigs(extras.launchConfigs.targets);
    case kKernelParams:
      return kernelParams();
    case kCpuVariants:
      return cpuVariants(extras.cpuVariants);
    }
    return true;
  }

  bool truncated() {
    error = "manifest is truncated or corrupt (reading " + where + ")";
    return false;
  }
  bool u8(uint8_t &v) { return r.u8(v) || truncated(); }
  bool u32(uint32_t &v) { return r.u32(v) || truncated(); }
  bool u64(uint64_t &v) { return r.u64(v) || truncated(); }
  bool i64(int64_t &v) { return r.i64(v) || truncated(); }
  bool str(std::string &s) { return r.string(s) || truncated(); }
  bool count(uint32_t &n, uint64_t minBytes) {
    return r.count(n, minBytes) || truncated();
  }
  template <typename E> bool enumValue(E &v) {
    uint32_t raw = 0;
    if (!u32(raw))
      return false;
    v = static_cast<E>(raw);
    return true;
  }

  bool shape(Shape &s) {
    uint32_t rank = 0;
    if (!count(rank, /*minBytes=*/5))
      return false;
    s.resize(rank);
    for (Dim &d : s) {
      uint8_t tag = 0;
      if (!u8(tag))
        return false;
      if (tag == kStaticDim) {
        if (!i64(d.value))
          return false;
      } else if (tag == kSymbolicDim) {
        if (!str(d.symbol))
          return false;
        d.value = -1;
      } else {
        error = "manifest: unknown dimension tag " + std::to_string(tag) +
                " in " + where;
        return false;
      }
    }
    return true;
  }

  bool signatures(std::vector<TensorSignature> &sigs, const char *what) {
    uint32_t n = 0;
    where = std::string("the ") + what + " list";
    if (!count(n, /*minBytes=*/16))
      return false;
    sigs.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = std::string(what) + " " + std::to_string(i);
      TensorSignature &s = sigs[i];
      if (!str(s.name) || !enumValue(s.dtype) || !shape(s.shape) ||
          !u32(s.buffer))
        return false;
    }
    return true;
  }

  bool buffers(std::vector<Buffer> &bufs) {
    uint32_t n = 0;
    where = "the buffer list";
    if (!count(n, /*minBytes=*/28))
      return false;
    bufs.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "buffer " + std::to_string(i);
      Buffer &b = bufs[i];
      if (!enumValue(b.kind) || !enumValue(b.dtype) || !shape(b.shape) ||
          !u64(b.weightOffset) || !u64(b.weightSize))
        return false;
    }
    return true;
  }

  bool kernels(std::vector<Kernel> &ks) {
    uint32_t n = 0;
    where = "the kernel list";
    if (!count(n, /*minBytes=*/12))
      return false;
    ks.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "kernel " + std::to_string(i);
      if (!str(ks[i].symbol) || !str(ks[i].onnxNode) || !str(ks[i].onnxOp))
        return false;
    }
    return true;
  }

  bool kernelParams() {
    uint32_t n = 0;
    where = "the kernel params";
    if (!count(n, /*minBytes=*/4))
      return false;
    params.resize(n);
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t arity = 0;
      where = "the params of kernel " + std::to_string(k);
      if (!count(arity, /*minBytes=*/8))
        return false;
      params[k].resize(arity);
      for (KernelParam &p : params[k])
        if (!enumValue(p.dtype) || !u32(p.rank))
          return false;
    }
    return true;
  }

  bool plan(std::vector<Launch> &launches) {
    uint32_t n = 0;
    where = "the plan";
    if (!count(n, /*minBytes=*/12))
      return false;
    launches.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "launch " + std::to_string(i);
      Launch &l = launches[i];
      if (!u32(l.kernel) || !views(l.args) || !shape(l.workSize))
        return false;
    }
    return true;
  }

  bool shapeProgram(std::vector<ShapeOp> &ops) {
    uint32_t n = 0;
    where = "the shape program";
    if (!count(n, /*minBytes=*/29))
      return false;
    ops.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "shape op " + std::to_string(i);
      ShapeOp &op = ops[i];
      uint8_t allowZero = 0;
      if (!enumValue(op.kind) || !shape(op.operands) || !shape(op.results) ||
          !u32(op.input) || !u8(allowZero) || !str(op.onnxNode) ||
          !str(op.onnxOp) || !str(op.message))
        return false;
      if (allowZero > 1) {
        error = "manifest: invalid allowZero flag " +
                std::to_string(allowZero) + " in " + where;
        return false;
      }
      op.allowZero = allowZero != 0;
      if (op.kind == ShapeOp::Kind::BufferValues)
        std::swap(op.buffer, op.input); // the source slot names a buffer
    }
    return true;
  }

  /// list<string>; `where` names it.
  bool strings(std::vector<std::string> &out) {
    uint32_t n = 0;
    if (!count(n, /*minBytes=*/4))
      return false;
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      if (!str(out[i]))
        return false;
    return true;
  }

  bool cpuVariants(
      std::vector<std::pair<std::string, std::vector<std::string>>> &out) {
    uint32_t n = 0;
    where = "the CPU variants";
    if (!count(n, /*minBytes=*/8))
      return false;
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "CPU variant " + std::to_string(i);
      if (!str(out[i].first) || !strings(out[i].second))
        return false;
    }
    return true;
  }

  bool hostValues(std::vector<HostValues> &fills) {
    uint32_t n = 0;
    where = "the host values";
    if (!count(n, /*minBytes=*/8))
      return false;
    fills.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "host values " + std::to_string(i);
      if (!u32(fills[i].buffer) || !shape(fills[i].values))
        return false;
    }
    return true;
  }

  /// A list of (u32 buffer, Shape shape).
  bool views(std::vector<LaunchArg> &out) {
    uint32_t n = 0;
    if (!count(n, /*minBytes=*/8))
      return false;
    out.resize(n);
    for (LaunchArg &view : out)
      if (!u32(view.buffer) || !shape(view.shape))
        return false;
    return true;
  }

  bool indices(std::vector<uint32_t> &out) {
    uint32_t n = 0;
    if (!count(n, /*minBytes=*/4))
      return false;
    out.resize(n);
    for (uint32_t &index : out)
      if (!u32(index))
        return false;
    return true;
  }

  bool regions(std::vector<Region> &out) {
    uint32_t n = 0;
    where = "the regions";
    if (!count(n, /*minBytes=*/8))
      return false;
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "region " + std::to_string(i);
      Region &region = out[i];
      uint32_t numSteps = 0;
      if (!count(numSteps, /*minBytes=*/8))
        return false;
      region.steps.resize(numSteps);
      for (Step &step : region.steps)
        if (!enumValue(step.kind) || !u32(step.index))
          return false;
      if (!views(region.yields))
        return false;
    }
    return true;
  }

  bool controlOps(std::vector<ControlOp> &out) {
    uint32_t n = 0;
    where = "the control ops";
    if (!count(n, /*minBytes=*/32))
      return false;
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "control op " + std::to_string(i);
      ControlOp &op = out[i];
      if (!enumValue(op.kind) || !views(op.operands) || !indices(op.regions) ||
          !indices(op.bodyArgs) || !indices(op.results) ||
          !str(op.iterationSymbol) || !str(op.onnxNode) || !str(op.onnxOp))
        return false;
    }
    return true;
  }

  bool launchConfigs(std::vector<TargetLaunchConfigs> &out) {
    uint32_t n = 0;
    where = "the launch configs";
    if (!count(n, /*minBytes=*/8))
      return false;
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "the launch configs of target " + std::to_string(i);
      TargetLaunchConfigs &t = out[i];
      uint32_t numConfigs = 0;
      if (!str(t.target) || !count(numConfigs, /*minBytes=*/64))
        return false;
      t.configs.resize(numConfigs);
      for (uint32_t k = 0; k < numConfigs; ++k) {
        where = "launch config " + std::to_string(k) + " of target " +
                std::to_string(i);
        LaunchConfig &c = t.configs[k];
        for (uint32_t &size : c.workgroupSize)
          if (!u32(size))
            return false;
        for (WorkgroupAxis &axis : c.workgroupCount)
          if (!indices(axis.dims) || !u64(axis.tile))
            return false;
        if (!u64(c.sharedMemoryBytes) || !u64(c.scratchBytes))
          return false;
      }
    }
    return true;
  }

  const uint8_t *data;
  ByteReader r;
  std::string where;
  ManifestExtras &extras;
  /// Field 14 until the kernels are known.
  std::vector<std::vector<KernelParam>> params;
};

} // namespace

void encodeManifest(const Artifact &a, std::vector<uint8_t> &out) {
  ByteWriter w(out);
  writeField(w, kProducer, [&] { w.string(a.producer); });
  writeField(w, kModelName, [&] { w.string(a.modelName); });
  writeField(w, kInputs, [&] { writeSignatures(w, a.inputs); });
  writeField(w, kOutputs, [&] { writeSignatures(w, a.outputs); });
  writeField(w, kBuffers, [&] {
    w.u32(static_cast<uint32_t>(a.buffers.size()));
    for (const Buffer &b : a.buffers) {
      w.u32(static_cast<uint32_t>(b.kind));
      w.u32(static_cast<uint32_t>(b.dtype));
      writeShape(w, b.shape);
      w.u64(b.weightOffset);
      w.u64(b.weightSize);
    }
  });
  writeField(w, kKernels, [&] {
    w.u32(static_cast<uint32_t>(a.kernels.size()));
    for (const Kernel &k : a.kernels) {
      w.string(k.symbol);
      w.string(k.onnxNode);
      w.string(k.onnxOp);
    }
  });
  writeField(w, kPlan, [&] {
    w.u32(static_cast<uint32_t>(a.plan.size()));
    for (const Launch &l : a.plan) {
      w.u32(l.kernel);
      writeViews(w, l.args);
      writeShape(w, l.workSize);
    }
  });
  writeField(w, kShapeProgram, [&] {
    w.u32(static_cast<uint32_t>(a.shapeProgram.size()));
    for (const ShapeOp &op : a.shapeProgram) {
      w.u32(static_cast<uint32_t>(op.kind));
      writeShape(w, op.operands);
      writeShape(w, op.results);
      w.u32(op.kind == ShapeOp::Kind::BufferValues ? op.buffer : op.input);
      w.u8(op.allowZero ? 1 : 0);
      w.string(op.onnxNode);
      w.string(op.onnxOp);
      w.string(op.message);
    }
  });
  auto writeStrings = [&](const std::vector<std::string> &list) {
    w.u32(static_cast<uint32_t>(list.size()));
    for (const std::string &s : list)
      w.string(s);
  };
  const TargetBinary *legacyCpu = nullptr;
  std::vector<const TargetBinary *> cpuVariants;
  for (const TargetBinary &bin : a.binaries)
    if (bin.target == "cpu")
      legacyCpu = &bin;
    else if (isCpuTarget(bin.target))
      cpuVariants.push_back(&bin);
  writeField(w, kCpuFeatures, [&] {
    writeStrings(legacyCpu ? legacyCpu->cpuFeatures
                           : std::vector<std::string>());
  });
  if (!a.hostValues.empty())
    writeField(w, kHostValues, [&] {
      w.u32(static_cast<uint32_t>(a.hostValues.size()));
      for (const HostValues &h : a.hostValues) {
        w.u32(h.buffer);
        writeShape(w, h.values);
      }
    });
  // Like host values, written only when used, so that an artifact without
  // control flow stays readable by 3.0 and 3.1 runtimes.
  if (!a.regions.empty())
    writeField(w, kRegions, [&] {
      w.u32(static_cast<uint32_t>(a.regions.size()));
      for (const Region &region : a.regions) {
        w.u32(static_cast<uint32_t>(region.steps.size()));
        for (const Step &step : region.steps) {
          w.u32(static_cast<uint32_t>(step.kind));
          w.u32(step.index);
        }
        writeViews(w, region.yields);
      }
    });
  if (!a.controlOps.empty())
    writeField(w, kControlOps, [&] {
      w.u32(static_cast<uint32_t>(a.controlOps.size()));
      for (const ControlOp &op : a.controlOps) {
        w.u32(static_cast<uint32_t>(op.kind));
        writeViews(w, op.operands);
        writeIndices(w, op.regions);
        writeIndices(w, op.bodyArgs);
        writeIndices(w, op.results);
        w.string(op.iterationSymbol);
        w.string(op.onnxNode);
        w.string(op.onnxOp);
      }
    });
  if (!a.binaries.empty())
    writeField(w, kLaunchConfigs, [&] {
      w.u32(static_cast<uint32_t>(a.binaries.size()));
      for (const TargetBinary &bin : a.binaries) {
        // The name its section gets (serialize() truncates it the same way).
        w.string(bin.target.substr(0, kMaxTargetNameLength));
        w.u32(static_cast<uint32_t>(bin.launchConfigs.size()));
        for (const LaunchConfig &c : bin.launchConfigs) {
          for (uint32_t size : c.workgroupSize)
            w.u32(size);
          for (const WorkgroupAxis &axis : c.workgroupCount) {
            writeIndices(w, axis.dims);
            w.u64(axis.tile);
          }
          w.u64(c.sharedMemoryBytes);
          w.u64(c.scratchBytes);
        }
      }
    });
  if (!a.kernels.empty())
    writeField(w, kKernelParams, [&] {
      w.u32(static_cast<uint32_t>(a.kernels.size()));
      for (const Kernel &k : a.kernels) {
        w.u32(static_cast<uint32_t>(k.params.size()));
        for (const KernelParam &p : k.params) {
          w.u32(static_cast<uint32_t>(p.dtype));
          w.u32(p.rank);
        }
      }
    });
  if (!cpuVariants.empty())
    writeField(w, kCpuVariants, [&] {
      w.u32(static_cast<uint32_t>(cpuVariants.size()));
      for (const TargetBinary *bin : cpuVariants) {
        w.string(bin->target.substr(0, kMaxTargetNameLength));
        writeStrings(bin->cpuFeatures);
      }
    });
}

bool decodeManifest(const uint8_t *data, uint64_t size, Artifact &artifact,
                    std::string &error, ManifestExtras *extras) {
  ManifestExtras ignored;
  Decoder d(data, size, extras ? *extras : ignored);
  if (d.decode(artifact))
    return true;
  error = d.error;
  return false;
}

} // namespace tessel::format
