// embed-cpp: runs a compiled Tessel model from C++ (tessel/tessel.hpp).
//
//   embed-cpp MODEL.tsl [--device D] [--threads N] NAME=FILE.npy...
//
// Loads the artifact, opens the device, creates a session with the given
// thread count, binds each input from its .npy file (float32 or int64),
// runs once and prints every output: name, dtype, shape, up to 64 values.
#include <tessel/tessel.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Array {
  tessel_dtype_t dtype = TESSEL_DTYPE_FLOAT32;
  std::vector<int64_t> dims;
  std::vector<char> data;
};

/// Reads a little-endian, C-ordered float32 or int64 .npy file.
bool loadNpy(const std::string &path, Array &out, std::string &error) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)),
                    std::istreambuf_iterator<char>());
  if (!f && !f.eof())
    return error = path + ": cannot read", false;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return error = path + ": not a .npy file", false;
  size_t lengthBytes = bytes[6] == 1 ? 2 : 4, length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
  size_t start = 8 + lengthBytes + length;
  if (start > bytes.size())
    return error = path + ": truncated header", false;
  std::string header = bytes.substr(8 + lengthBytes, length);
  if (header.find("'fortran_order': False") == std::string::npos)
    return error = path + ": only C-ordered arrays are supported", false;
  if (header.find("'<f4'") != std::string::npos)
    out.dtype = TESSEL_DTYPE_FLOAT32;
  else if (header.find("'<i8'") != std::string::npos)
    out.dtype = TESSEL_DTYPE_INT64;
  else
    return error = path + ": only float32 and int64 arrays are supported",
           false;
  size_t open = header.find('(', header.find("'shape'"));
  std::istringstream shape(
      header.substr(open + 1, header.find(')', open) - open - 1));
  size_t elements = 1;
  for (std::string dim; std::getline(shape, dim, ',');)
    if (dim.find_first_of("0123456789") != std::string::npos) {
      out.dims.push_back(std::stoll(dim));
      elements *= size_t(out.dims.back());
    }
  size_t size = elements * tessel_dtype_size(out.dtype);
  if (bytes.size() - start < size)
    return error = path + ": truncated data", false;
  out.data.assign(bytes.begin() + start, bytes.begin() + start + size);
  return true;
}

/// Prints `what` and the status's message when `s` is an error.
bool failed(const tessel::Status &s, const std::string &what) {
  if (s)
    return false;
  std::cerr << "embed-cpp: " << what << ": " << s.message() << "\n";
  return true;
}

template <typename T> void printValues(const tessel_tensor_view_t &v, size_t n) {
  const T *p = static_cast<const T *>(v.data);
  for (size_t i = 0; i < n; ++i)
    std::cout << " " << +p[i];
}

} // namespace

int main(int argc, char **argv) {
  std::string model, deviceSpec = "cpu";
  tessel_session_options_t options;
  tessel_session_options_init(&options);
  std::vector<std::string> feeds;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (arg == "--threads" && i + 1 < argc)
      options.threads = uint32_t(std::stoul(argv[++i]));
    else if (model.empty())
      model = arg;
    else
      feeds.push_back(arg);
  }
  if (model.empty()) {
    std::cerr << "usage: embed-cpp MODEL.tsl [--device D] [--threads N] "
                 "NAME=FILE.npy...\n";
    return 2;
  }

  tessel::Artifact artifact;
  tessel::Device device;
  tessel::Session session;
  if (failed(tessel::Artifact::load(model, artifact), "load") ||
      failed(tessel::Device::create(deviceSpec, device), "device") ||
      failed(tessel::Session::create(artifact, device, options, session),
             "session"))
    return 1;

  for (const std::string &feed : feeds) {
    size_t eq = feed.find('=');
    if (eq == std::string::npos) {
      std::cerr << "embed-cpp: expected NAME=FILE.npy, got '" << feed << "'\n";
      return 1;
    }
    std::string name = feed.substr(0, eq), error;
    Array array;
    if (!loadNpy(feed.substr(eq + 1), array, error)) {
      std::cerr << "embed-cpp: " << error << "\n";
      return 1;
    }
    if (failed(session.setInput(name, array.dtype, array.dims,
                                array.data.data(), array.data.size()),
               name))
      return 1;
  }

  if (failed(session.run(), "run"))
    return 1;

  std::cout.precision(9);
  for (const tessel_tensor_info_t &info : artifact.outputs()) {
    tessel_tensor_view_t view;
    if (failed(session.output(info.name, view), info.name))
      return 1;
    std::cout << "output '" << info.name << "' "
              << tessel_dtype_name(view.dtype) << " [";
    size_t elements = 1;
    for (size_t d = 0; d < view.rank; ++d) {
      std::cout << (d ? ", " : "") << view.dims[d];
      elements *= size_t(view.dims[d]);
    }
    std::cout << "]\n ";
    size_t shown = elements < 64 ? elements : 64;
    switch (view.dtype) {
    case TESSEL_DTYPE_FLOAT32: printValues<float>(view, shown); break;
    case TESSEL_DTYPE_INT64: printValues<int64_t>(view, shown); break;
    case TESSEL_DTYPE_INT32: printValues<int32_t>(view, shown); break;
    case TESSEL_DTYPE_BOOL:
    case TESSEL_DTYPE_UINT8: printValues<uint8_t>(view, shown); break;
    default: std::cout << " (values of " << tessel_dtype_name(view.dtype)
                       << " not printed)"; break;
    }
    std::cout << (elements > shown ? " ...\n" : "\n");
  }
  return 0;
}
