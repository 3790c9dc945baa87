//===- ArtifactImage.cpp - A loaded artifact ------------------------------===//
//
// Files are mapped read-only and private; deserialize() runs on the mapping
// without copying the weights, which are then used where they lie (the
// section is page aligned and each weight 64-byte aligned). In-memory
// artifacts are copied into a page-aligned allocation for the same reason.
//
//===----------------------------------------------------------------------===//

#include "ArtifactImage.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel::runtime {

namespace {

SignatureView makeView(const format::TensorSignature &sig) {
  SignatureView v;
  for (const format::Dim &d : sig.shape) {
    v.dims.push_back(d.isSymbolic() ? -1 : d.value);
    v.symbols.push_back(d.isSymbolic() ? d.symbol.c_str() : nullptr);
  }
  return v;
}

void finishView(SignatureView &v, const format::TensorSignature &sig) {
  v.info.name = sig.name.c_str();
  v.info.dtype = static_cast<tessel_dtype_t>(sig.dtype);
  v.info.rank = v.dims.size();
  v.info.dims = v.dims.data();
  v.info.dim_symbols = v.symbols.data();
}

std::string nameList(const std::vector<format::TensorSignature> &sigs) {
  std::string s;
  for (size_t i = 0; i < sigs.size(); ++i)
    s += (i ? ", '" : "'") + sigs[i].name + "'";
  return s.empty() ? "none" : s;
}

int64_t find(const std::vector<format::TensorSignature> &sigs,
             const std::string &name) {
  for (size_t i = 0; i < sigs.size(); ++i)
    if (sigs[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}

} // namespace

Status ArtifactImage::loadFile(const std::string &path,
                               std::shared_ptr<const ArtifactImage> &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = path + ": " + std::strerror(err);
    return err == ENOENT ? notFound(message) : invalidArgument(message);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalidArgument(path + ": not a regular file");
  }
  std::shared_ptr<ArtifactImage> image(new ArtifactImage);
  image->size = static_cast<uint64_t>(st.st_size);
  if (image->size != 0) {
    void *p = mmap(nullptr, image->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::string message = path + ": cannot map: " + std::strerror(errno);
      ::close(fd);
      return resourceExhausted(message);
    }
    image->base = static_cast<const uint8_t *>(p);
    image->mapped = true;
  }
  ::close(fd);
  TESSEL_RETURN_IF_ERROR(image->decode(path));
  out = std::move(image);
  return Status::ok();
}

Status ArtifactImage::loadMemory(const void *data, size_t size,
                                 std::shared_ptr<const ArtifactImage> &out) {
  if (!data && size)
    return invalidArgument("artifact data is null");
  std::shared_ptr<ArtifactImage> image(new ArtifactImage);
  image->size = size;
  if (size != 0) {
    size_t alloc = (size + format::kSectionAlignment - 1) /
                   format::kSectionAlignment * format::kSectionAlignment;
    void *p = std::aligned_alloc(format::kSectionAlignment, alloc);
    if (!p)
      return resourceExhausted("cannot allocate " + std::to_string(size) +
                               " bytes for the artifact");
    std::memcpy(p, data, size);
    image->base = static_cast<const uint8_t *>(p);
  }
  TESSEL_RETURN_IF_ERROR(image->decode("in-memory artifact"));
  out = std::move(image);
  return Status::ok();
}

Status ArtifactImage::decode(const std::string &origin) {
  std::string error;
  if (!format::deserialize(base, size, artifact, error, /*copyWeights=*/false))
    return invalidArtifact(origin + ": " + error);
  inputViews.reserve(artifact.inputs.size());
  for (const auto &sig : artifact.inputs)
    inputViews.push_back(makeView(sig));
  outputViews.reserve(artifact.outputs.size());
  for (const auto &sig : artifact.outputs)
    outputViews.push_back(makeView(sig));
  // The info structs point into the vectors: fill them once those are final.
  for (size_t i = 0; i < inputViews.size(); ++i)
    finishView(inputViews[i], artifact.inputs[i]);
  for (size_t i = 0; i < outputViews.size(); ++i)
    finishView(outputViews[i], artifact.outputs[i]);
  return Status::ok();
}

ArtifactImage::~ArtifactImage() {
  if (!base)
    return;
  if (mapped)
    munmap(const_cast<uint8_t *>(base), size);
  else
    std::free(const_cast<uint8_t *>(base));
}

int64_t ArtifactImage::findInput(const std::string &name) const {
  return find(artifact.inputs, name);
}
int64_t ArtifactImage::findOutput(const std::string &name) const {
  return find(artifact.outputs, name);
}
std::string ArtifactImage::inputNames() const {
  return nameList(artifact.inputs);
}
std::string ArtifactImage::outputNames() const {
  return nameList(artifact.outputs);
}

} // namespace tessel::runtime
