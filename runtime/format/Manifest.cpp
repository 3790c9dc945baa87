//===- Manifest.cpp - Binary encoding of the artifact's manifest ----------===//
//
// Encoder and bounds-checked decoder of the manifest. The field order is:
//
//   string producer, string modelName,
//   list<Signature> inputs, list<Signature> outputs,
//   list<Buffer> buffers, list<Kernel> kernels, list<Launch> plan,
//   list<ShapeRule> shapeRules, list<string> cpuFeatures
//
//   Signature = string name, u32 dtype, Shape shape, u32 buffer
//   Buffer    = u32 kind, u32 dtype, Shape shape, u64 weightOffset,
//               u64 weightSize
//   Kernel    = string symbol, string onnxNode, string onnxOp
//   Launch    = u32 kernel, list<(u32 buffer, Shape shape)> args,
//               Shape workSize
//   ShapeRule = u32 input, Shape source, u8 allowZero (0 or 1), Shape result
//   Shape     = list<Dim>;  Dim = u8 0, i64 extent | u8 1, string symbol
//
// The decoder names the element it was reading when the bytes run out.
//
//===----------------------------------------------------------------------===//

#include "format/Manifest.h"

#include "format/ByteIO.h"

namespace tessel::format {

namespace {

constexpr uint8_t kStaticDim = 0;
constexpr uint8_t kSymbolicDim = 1;

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

//===----------------------------------------------------------------------===//
// Decoder
//===----------------------------------------------------------------------===//

/// Reads the manifest; `where` names the element being read for errors.
class Decoder {
public:
  Decoder(const uint8_t *data, uint64_t size) : r(data, size) {}

  bool decode(Artifact &a, bool allowTrailing) {
    where = "the producer";
    if (!str(a.producer))
      return false;
    where = "the model name";
    if (!str(a.modelName))
      return false;
    if (!signatures(a.inputs, "input") || !signatures(a.outputs, "output") ||
        !buffers(a.buffers) || !kernels(a.kernels) || !plan(a.plan) ||
        !shapeRules(a.shapeRules) || !cpuFeatures(a.cpuFeatures))
      return false;
    if (!r.atEnd() && !allowTrailing) {
      error = "manifest has " + std::to_string(r.remaining()) +
              " unexpected trailing bytes";
      return false;
    }
    return true;
  }

  std::string error;

private:
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
    uint32_t raw;
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

  bool plan(std::vector<Launch> &launches) {
    uint32_t n = 0;
    where = "the plan";
    if (!count(n, /*minBytes=*/12))
      return false;
    launches.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "launch " + std::to_string(i);
      Launch &l = launches[i];
      uint32_t numArgs = 0;
      if (!u32(l.kernel) || !count(numArgs, /*minBytes=*/8))
        return false;
      l.args.resize(numArgs);
      for (LaunchArg &arg : l.args)
        if (!u32(arg.buffer) || !shape(arg.shape))
          return false;
      if (!shape(l.workSize))
        return false;
    }
    return true;
  }

  bool shapeRules(std::vector<ShapeFromInput> &rules) {
    uint32_t n = 0;
    where = "the shape rules";
    if (!count(n, /*minBytes=*/13))
      return false;
    rules.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      where = "shape rule " + std::to_string(i);
      ShapeFromInput &rule = rules[i];
      uint8_t allowZero = 0;
      if (!u32(rule.input) || !shape(rule.source) || !u8(allowZero) ||
          !shape(rule.result))
        return false;
      if (allowZero > 1) {
        error = "manifest: invalid allowZero flag " +
                std::to_string(allowZero) + " in " + where;
        return false;
      }
      rule.allowZero = allowZero != 0;
    }
    return true;
  }

  bool cpuFeatures(std::vector<std::string> &features) {
    uint32_t n = 0;
    where = "the CPU features";
    if (!count(n, /*minBytes=*/4))
      return false;
    features.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      if (!str(features[i]))
        return false;
    return true;
  }

  ByteReader r;
  std::string where;
};

} // namespace

void encodeManifest(const Artifact &a, std::vector<uint8_t> &out) {
  ByteWriter w(out);
  w.string(a.producer);
  w.string(a.modelName);
  writeSignatures(w, a.inputs);
  writeSignatures(w, a.outputs);
  w.u32(static_cast<uint32_t>(a.buffers.size()));
  for (const Buffer &b : a.buffers) {
    w.u32(static_cast<uint32_t>(b.kind));
    w.u32(static_cast<uint32_t>(b.dtype));
    writeShape(w, b.shape);
    w.u64(b.weightOffset);
    w.u64(b.weightSize);
  }
  w.u32(static_cast<uint32_t>(a.kernels.size()));
  for (const Kernel &k : a.kernels) {
    w.string(k.symbol);
    w.string(k.onnxNode);
    w.string(k.onnxOp);
  }
  w.u32(static_cast<uint32_t>(a.plan.size()));
  for (const Launch &l : a.plan) {
    w.u32(l.kernel);
    w.u32(static_cast<uint32_t>(l.args.size()));
    for (const LaunchArg &arg : l.args) {
      w.u32(arg.buffer);
      writeShape(w, arg.shape);
    }
    writeShape(w, l.workSize);
  }
  w.u32(static_cast<uint32_t>(a.shapeRules.size()));
  for (const ShapeFromInput &rule : a.shapeRules) {
    w.u32(rule.input);
    writeShape(w, rule.source);
    w.u8(rule.allowZero ? 1 : 0);
    writeShape(w, rule.result);
  }
  w.u32(static_cast<uint32_t>(a.cpuFeatures.size()));
  for (const std::string &feature : a.cpuFeatures)
    w.string(feature);
}

bool decodeManifest(const uint8_t *data, uint64_t size, bool allowTrailing,
                    Artifact &artifact, std::string &error) {
  Decoder d(data, size);
  if (d.decode(artifact, allowTrailing))
    return true;
  error = d.error;
  return false;
}

} // namespace tessel::format
