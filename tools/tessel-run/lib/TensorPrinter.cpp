//===- TensorPrinter.cpp - numpy-style printing of tensors ----------------===//

#include "TensorPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace tessel::run {

using format::DType;

namespace {

template <typename T> T load(const io::HostTensor &t, uint64_t index) {
  T v;
  std::memcpy(&v, t.data.data() + index * sizeof(T), sizeof(T));
  return v;
}

std::string formatFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.8g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += '.';
  return s;
}

/// The indices of an axis of `size` to show; -1 stands for "...".
std::vector<int64_t> shownIndices(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kPrintEdgeItems) {
    for (int64_t i = 0; i < kPrintEdgeItems; ++i)
      idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = size - kPrintEdgeItems; i < size; ++i)
      idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i)
      idx.push_back(i);
  }
  return idx;
}

class Printer {
public:
  Printer(std::ostream &os, const io::HostTensor &t)
      : os(os), t(t), strides(t.shape.size(), 1),
        summarize(t.elementCount() > kPrintThreshold) {
    for (size_t i = t.shape.size(); i-- > 1;)
      strides[i - 1] = strides[i] * static_cast<uint64_t>(t.shape[i]);
  }

  void print() {
    collectWidth(0, 0);
    printAxis(0, 0);
  }

private:
  void collectWidth(size_t axis, uint64_t base) {
    if (axis == t.shape.size()) {
      width = std::max(width, formatElement(t, base).size());
      return;
    }
    for (int64_t i : shownIndices(t.shape[axis], summarize))
      if (i >= 0)
        collectWidth(axis + 1, base + static_cast<uint64_t>(i) * strides[axis]);
  }

  void printAxis(size_t axis, uint64_t base) {
    size_t rank = t.shape.size();
    if (axis == rank) {
      std::string s = formatElement(t, base);
      os << std::string(width - s.size(), ' ') << s;
      return;
    }
    os << '[';
    bool first = true;
    for (int64_t i : shownIndices(t.shape[axis], summarize)) {
      if (!first) {
        if (axis + 1 == rank)
          os << ' ';
        else
          os << std::string(rank - axis - 1, '\n')
             << std::string(axis + 1, ' ');
      }
      first = false;
      if (i < 0)
        os << "...";
      else
        printAxis(axis + 1, base + static_cast<uint64_t>(i) * strides[axis]);
    }
    os << ']';
  }

  std::ostream &os;
  const io::HostTensor &t;
  std::vector<uint64_t> strides;
  bool summarize;
  size_t width = 0;
};

} // namespace

std::string formatElement(const io::HostTensor &t, uint64_t i) {
  switch (t.dtype) {
  case DType::F32:
    return formatFloat(load<float>(t, i));
  case DType::F64:
    return formatFloat(load<double>(t, i));
  case DType::F16:
    return formatFloat(io::halfToFloat(load<uint16_t>(t, i)));
  case DType::BF16:
    return formatFloat(io::bfloat16ToFloat(load<uint16_t>(t, i)));
  case DType::Bool:
    return load<uint8_t>(t, i) ? "True" : "False";
  case DType::I8:
  case DType::I4: // one sign-extended byte each
  case DType::I2:
    return std::to_string(load<int8_t>(t, i));
  case DType::U8:
  case DType::U4:
  case DType::U2:
    return std::to_string(load<uint8_t>(t, i));
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F8E8M0:
  case DType::F4E2M1:
    return formatFloat(io::narrowFloatToFloat(t.dtype, load<uint8_t>(t, i)));
  case DType::I16:
    return std::to_string(load<int16_t>(t, i));
  case DType::U16:
    return std::to_string(load<uint16_t>(t, i));
  case DType::I32:
    return std::to_string(load<int32_t>(t, i));
  case DType::U32:
    return std::to_string(load<uint32_t>(t, i));
  case DType::I64:
    return std::to_string(load<int64_t>(t, i));
  case DType::U64:
    return std::to_string(load<uint64_t>(t, i));
  }
  return "?";
}

void printTensor(std::ostream &os, const std::string &name,
                 const io::HostTensor &t) {
  os << name << ": " << format::dtypeName(t.dtype) << " [";
  for (size_t i = 0; i < t.shape.size(); ++i)
    os << (i ? ", " : "") << t.shape[i];
  os << "]\n";
  Printer(os, t).print();
  os << '\n';
}

} // namespace tessel::run
