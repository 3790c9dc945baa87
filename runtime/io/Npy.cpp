//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// Layout: "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for
// 2.x/3.x), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline so the data starts 64-byte aligned, then
// the raw data. The header is parsed with a small bounds-checked parser of
// exactly that subset of Python literals.
//
//===----------------------------------------------------------------------===//

#include "io/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

namespace tessel::io {

using format::DType;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  char kind;
  int size;
  DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {'f', 2, DType::F16}, {'f', 4, DType::F32}, {'f', 8, DType::F64},
    {'i', 1, DType::I8},  {'i', 2, DType::I16}, {'i', 4, DType::I32},
    {'i', 8, DType::I64}, {'u', 1, DType::U8},  {'u', 2, DType::U16},
    {'u', 4, DType::U32}, {'u', 8, DType::U64}, {'b', 1, DType::Bool},
};

/// A parsed header value: a string, a bool or a tuple of integers.
struct Value {
  enum Kind { String, Bool, Tuple } kind = String;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

/// Parses the header dict; every access is bounds-checked.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &s) : s(s) {}

  bool parse(std::map<std::string, Value> &out, std::string &error) {
    if (!expect('{'))
      return fail(error, "expected '{'");
    while (true) {
      skipSpace();
      if (peek() == '}') {
        ++pos;
        return true;
      }
      std::string key;
      Value value;
      if (!string(key))
        return fail(error, "expected a quoted key");
      if (!expect(':'))
        return fail(error, "expected ':' after '" + key + "'");
      if (!parseValue(value))
        return fail(error, "bad value for '" + key + "'");
      out[key] = std::move(value);
      skipSpace();
      if (peek() == ',')
        ++pos;
      else if (peek() != '}')
        return fail(error, "expected ',' or '}'");
    }
  }

private:
  bool fail(std::string &error, const std::string &what) {
    error =
        "malformed .npy header: " + what + " at offset " + std::to_string(pos);
    return false;
  }
  char peek() const { return pos < s.size() ? s[pos] : '\0'; }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool expect(char c) {
    skipSpace();
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  bool word(const char *w) {
    size_t n = std::strlen(w);
    if (s.compare(pos, n, w) != 0)
      return false;
    pos += n;
    return true;
  }
  bool string(std::string &out) {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return false;
    size_t end = s.find(quote, pos + 1);
    if (end == std::string::npos)
      return false;
    out = s.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return true;
  }
  bool integer(int64_t &v) {
    skipSpace();
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    if (pos == start || pos - start > 18)
      return false;
    v = std::stoll(s.substr(start, pos - start));
    if (peek() == 'L') // Python 2 longs
      ++pos;
    return true;
  }
  bool parseValue(Value &v) {
    skipSpace();
    if (peek() == '\'' || peek() == '"') {
      v.kind = Value::String;
      return string(v.text);
    }
    if (word("True") || word("False")) {
      v.kind = Value::Bool;
      v.flag = s.compare(pos - 4, 4, "True") == 0;
      return true;
    }
    if (peek() == '[') {
      v.kind = Value::String; // a structured dtype; rejected by the caller
      v.text = "[";
      size_t end = s.find(']', pos);
      if (end == std::string::npos)
        return false;
      pos = end + 1;
      return true;
    }
    if (peek() != '(')
      return false;
    ++pos;
    v.kind = Value::Tuple;
    while (true) {
      skipSpace();
      if (peek() == ')') {
        ++pos;
        return true;
      }
      int64_t n;
      if (!integer(n))
        return false;
      v.ints.push_back(n);
      skipSpace();
      if (peek() == ',')
        ++pos;
      else if (peek() != ')')
        return false;
    }
  }

  const std::string &s;
  size_t pos = 0;
};

bool dtypeFromDescr(const std::string &descr, DType &dtype,
                    std::string &error) {
  if (descr == "[") {
    error = "structured arrays are not supported";
    return false;
  }
  if (descr.size() >= 3) {
    char order = descr[0];
    char kind = descr[1];
    std::string digits = descr.substr(2);
    int size = digits.find_first_not_of("0123456789") == std::string::npos &&
                       digits.size() <= 2
                   ? std::stoi(digits)
                   : 0;
    for (const DescrEntry &e : kDescrs) {
      if (e.kind != kind || e.size != size)
        continue;
      if (order == '>' && size > 1) {
        error = "big-endian data is not supported (dtype '" + descr +
                "'); save it little-endian, e.g. a.astype(a.dtype."
                "newbyteorder('<'))";
        return false;
      }
      if (order == '<' || order == '|' || order == '=' || order == '>') {
        dtype = e.dtype;
        return true;
      }
    }
  }
  error = "unsupported dtype '" + descr + "'";
  return false;
}

void appendLE(std::vector<uint8_t> &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

} // namespace

bool looksLikeNpy(const uint8_t *data, size_t size) {
  return size >= kMagicSize && std::memcmp(data, kMagic, kMagicSize) == 0;
}

const char *npyDescr(DType dtype) {
  static const char *const names[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                      "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
  for (size_t i = 0; i < std::size(kDescrs); ++i)
    if (kDescrs[i].dtype == dtype)
      return names[i];
  return nullptr;
}

bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &error) {
  if (!looksLikeNpy(data, size)) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  if (size < 10) {
    error = "truncated .npy header";
    return false;
  }
  uint8_t major = data[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = data[8] | (size_t(data[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLength = data[8] | (size_t(data[9]) << 8) | (size_t(data[10]) << 16) |
                   (size_t(data[11]) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(data[7]);
    return false;
  }
  if (headerLength > size - headerStart) {
    error = "truncated .npy header";
    return false;
  }
  std::string header(reinterpret_cast<const char *>(data + headerStart),
                     headerLength);
  std::map<std::string, Value> dict;
  if (!HeaderParser(header).parse(dict, error))
    return false;
  auto descr = dict.find("descr");
  auto fortran = dict.find("fortran_order");
  auto shape = dict.find("shape");
  if (descr == dict.end() || descr->second.kind != Value::String ||
      fortran == dict.end() || fortran->second.kind != Value::Bool ||
      shape == dict.end() || shape->second.kind != Value::Tuple) {
    error = "malformed .npy header: needs 'descr', 'fortran_order', 'shape'";
    return false;
  }
  // Fortran order only differs from C order from rank 2 on.
  if (fortran->second.flag && shape->second.ints.size() > 1) {
    error = "Fortran-order arrays are not supported; save a C-order array "
            "(numpy.ascontiguousarray)";
    return false;
  }
  HostTensor t;
  if (!dtypeFromDescr(descr->second.text, t.dtype, error))
    return false;
  t.shape = shape->second.ints;
  uint64_t count;
  uint64_t itemSize = format::dtypeSize(t.dtype);
  if (!checkedElementCount(t.shape, itemSize, count)) {
    error = "shape is too large";
    return false;
  }
  uint64_t expected = count * itemSize;
  uint64_t available = size - headerStart - headerLength;
  if (available != expected) {
    error = available < expected
                ? "truncated data: expected " + std::to_string(expected) +
                      " bytes, got " + std::to_string(available)
                : std::to_string(available - expected) +
                      " unexpected bytes after the data";
    return false;
  }
  const uint8_t *begin = data + headerStart + headerLength;
  t.data.assign(begin, begin + expected);
  out = std::move(t);
  return true;
}

bool encodeNpy(const HostTensor &t, std::vector<uint8_t> &out,
               std::string &error) {
  const char *descr = npyDescr(t.dtype);
  if (!descr) {
    error = std::string("numpy has no dtype for ") + format::dtypeName(t.dtype);
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : "") +
             (i + 1 < t.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a final newline so that the data is 64-aligned.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  out.assign(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  appendLE(out, header.size(), v2 ? 4 : 2);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), t.data.begin(), t.data.end());
  return true;
}

bool readNpyFile(const std::string &path, HostTensor &out, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  if (!parseNpy(bytes.data(), bytes.size(), out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool writeNpyFile(const std::string &path, const HostTensor &tensor,
                  std::string &error) {
  std::vector<uint8_t> bytes;
  if (!encodeNpy(tensor, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    error = path + ": write error";
  return ok;
}

} // namespace tessel::io
