//===- Tensors.cpp - ONNX TensorProto -> DenseElementsAttr -----------------===//
//
// Initializers and Constant values: raw data, ONNX's typed fields, and
// external data files, which must lie inside the model's folder.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "format/Artifact.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

#include <filesystem>
#include <fstream>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;
namespace fs = std::filesystem;

bool onnx_import::readWholeFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  return !in.bad();
}

LogicalResult ImportContext::fail(Location loc, const Twine &message) {
  std::string where = describeLoc(loc);
  return emitError(loc) << (where.empty() ? file : where) << ": " << message;
}

LogicalResult ImportContext::loadExternalData(const onnx::TensorProto &tensor,
                                              Location loc,
                                              std::string &bytes) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool hasLength = false;
  for (const onnx::StringStringEntryProto &e : tensor.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset")
      offset = std::strtoull(e.value().c_str(), nullptr, 10);
    else if (e.key() == "length") {
      length = std::strtoull(e.value().c_str(), nullptr, 10);
      hasLength = true;
    }
  }
  std::string what = "initializer '" + tensor.name() + "'";
  if (location.empty())
    return fail(loc, what + ": external data without a location");
  // The data must live inside the model's folder: no absolute paths, and no
  // path that leaves the folder once '..' and symlinks are resolved.
  fs::path dir = fs::weakly_canonical(fs::absolute(file).parent_path());
  fs::path rel(location);
  std::error_code ec;
  fs::path dataFile = fs::weakly_canonical(dir / rel, ec);
  auto [dirEnd, fileIt] =
      std::mismatch(dir.begin(), dir.end(), dataFile.begin(), dataFile.end());
  if (rel.is_absolute() || ec || dirEnd != dir.end())
    return fail(loc, what + ": external data path '" + location +
                         "' leaves the model's folder");
  std::string data;
  if (!readWholeFile(dataFile, data))
    return fail(loc,
                what + ": cannot read external data file '" + location + "'");
  if (offset > data.size() || (hasLength && length > data.size() - offset))
    return fail(loc, what + ": external data range [" + Twine(offset) + ", +" +
                         Twine(length) + ") is outside '" + location + "' (" +
                         Twine(data.size()) + " bytes)");
  bytes = data.substr(offset, hasLength ? length : std::string::npos);
  return success();
}

/// The i8 elements of a 4- or 2-bit tensor from its packed bytes.
static DenseElementsAttr unpackedAttr(RankedTensorType type,
                                      format::DType dtype, const char *bytes,
                                      int64_t count) {
  std::vector<char> elements(count);
  format::unpackElements(dtype, reinterpret_cast<const uint8_t *>(bytes),
                         count, reinterpret_cast<uint8_t *>(elements.data()));
  return DenseElementsAttr::getFromRawBuffer(type, elements);
}

FailureOr<DenseElementsAttr>
ImportContext::tensorAttr(const onnx::TensorProto &tensor, Location loc) {
  std::string what = "tensor '" + tensor.name() + "'";
  Type element = elementType(tensor.data_type());
  if (!element) {
    unsupported = true;
    return fail(loc,
                what + ": unsupported data type " + Twine(tensor.data_type()));
  }
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return fail(loc, what + ": negative dim");
  // 4- and 2-bit types are packed in the proto and one element per byte in
  // the graph.
  auto dtype = static_cast<format::DType>(tensor.data_type());
  bool packed = format::dtypePackedBits(dtype) < 8; // a known dtype here
  unsigned width = packed ? format::dtypePackedBits(dtype)
                   : element.isInteger(1) ? 8
                                          : element.getIntOrFloatBitWidth();
  // The element count and the byte size in checked arithmetic: a crafted
  // model whose dims multiply past 2^63 would otherwise wrap to a small
  // count that a short (or empty) data field matches.
  int64_t count = 1, bytesNeeded = 0;
  for (int64_t d : shape)
    if (llvm::MulOverflow(count, d, count))
      return fail(loc, what + ": its dims hold more than 2^63 elements");
  if (llvm::MulOverflow(count, static_cast<int64_t>(width), bytesNeeded))
    return fail(loc, what + ": its data would be larger than 2^63 bits");
  bytesNeeded = (bytesNeeded + 7) / 8;
  auto type = RankedTensorType::get(shape, element);

  std::string raw;
  bool external = tensor.data_location() == onnx::TensorProto::EXTERNAL;
  if (external && failed(loadExternalData(tensor, loc, raw)))
    return failure();
  if (external || tensor.has_raw_data()) {
    const std::string &bytes = external ? raw : tensor.raw_data();
    if (bytes.size() != static_cast<uint64_t>(bytesNeeded))
      return fail(loc, what + ": holds " + Twine(bytes.size()) +
                           " bytes, expected " + Twine(bytesNeeded));
    if (element.isInteger(1)) {
      SmallVector<bool> bools(bytes.begin(), bytes.end());
      return DenseElementsAttr::get(type, ArrayRef<bool>(bools));
    }
    if (packed)
      return unpackedAttr(type, dtype, bytes.data(), count);
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data(), bytes.size()));
  }
  // Typed fields, by ONNX's storage rules.
  auto check = [&](int size) -> LogicalResult {
    if (size != count)
      return fail(loc, what + ": holds " + Twine(size) + " values, expected " +
                           Twine(count));
    return success();
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    if (failed(check(tensor.float_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<float>(tensor.float_data().data(), count));
  case onnx::TensorProto::DOUBLE:
    if (failed(check(tensor.double_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<double>(tensor.double_data().data(), count));
  case onnx::TensorProto::INT64:
    if (failed(check(tensor.int64_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<int64_t>(tensor.int64_data().data(), count));
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64: {
    if (failed(check(tensor.uint64_data_size())))
      return failure();
    SmallVector<APInt> values;
    for (uint64_t v : tensor.uint64_data())
      values.push_back(
          APInt(width, v, /*isSigned=*/false, /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  default: {
    if (packed) { // one int32 per byte of the packed storage
      if (tensor.int32_data_size() != bytesNeeded)
        return fail(loc, what + ": holds " + Twine(tensor.int32_data_size()) +
                             " packed bytes, expected " + Twine(bytesNeeded));
      std::string bytes(tensor.int32_data().begin(),
                        tensor.int32_data().end());
      return unpackedAttr(type, dtype, bytes.data(), count);
    }
    // int32, int16, int8, uint16, uint8, bool, float16, bfloat16, float8:
    // int32_data, one element each.
    if (failed(check(tensor.int32_data_size())))
      return failure();
    // A bool is one bit in the graph (8 is its width in raw bytes above):
    // any nonzero int32 is true.
    SmallVector<APInt> bits;
    for (int32_t v : tensor.int32_data())
      bits.push_back(element.isInteger(1)
                         ? APInt(1, v != 0)
                         : APInt(width,
                                 static_cast<uint64_t>(static_cast<uint32_t>(v)),
                                 false, true));
    if (isa<FloatType>(element)) {
      SmallVector<APFloat> floats;
      for (const APInt &b : bits)
        floats.push_back(
            APFloat(cast<FloatType>(element).getFloatSemantics(), b));
      return DenseElementsAttr::get(type, floats);
    }
    return DenseElementsAttr::get(type, bits);
  }
  }
}
