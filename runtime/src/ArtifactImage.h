//===- ArtifactImage.h - A loaded artifact ----------------------*- C++ -*-===//
//
// An ArtifactImage is a validated artifact in memory: the decoded model, and
// the bytes of the file (memory-mapped, or an owned copy) that the weights
// are used from in place. It also keeps the C API's view of the input and
// output signatures, so that the pointers handed out stay valid as long as
// the image lives. Images are immutable and shared (sessions keep theirs
// alive).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_ARTIFACTIMAGE_H
#define TESSEL_RUNTIME_SRC_ARTIFACTIMAGE_H

#include "Status.h"
#include "format/Artifact.h"

#include <memory>

namespace tessel::runtime {

/// One input or output signature as the C API shows it.
struct SignatureView {
  std::vector<int64_t> dims;         ///< -1 for symbolic dims
  std::vector<const char *> symbols; ///< null for static dims
  tessel_tensor_info_t info;         ///< points into the above and the model
};

class ArtifactImage {
public:
  /// Maps and validates the file at `path`. Messages start with the path.
  static Status loadFile(const std::string &path,
                         std::shared_ptr<const ArtifactImage> &out);
  /// Copies and validates `size` bytes at `data`.
  static Status loadMemory(const void *data, size_t size,
                           std::shared_ptr<const ArtifactImage> &out);

  ArtifactImage(const ArtifactImage &) = delete;
  ArtifactImage &operator=(const ArtifactImage &) = delete;
  ~ArtifactImage();

  const format::Artifact &model() const { return artifact; }
  /// The weights section: 64-byte aligned, weightsSize() bytes.
  const uint8_t *weights() const { return base + artifact.weightsFileOffset; }
  uint64_t weightsSize() const { return artifact.weightsFileSize; }

  const std::vector<SignatureView> &inputs() const { return inputViews; }
  const std::vector<SignatureView> &outputs() const { return outputViews; }
  /// Index of the input/output called `name`, or -1.
  int64_t findInput(const std::string &name) const;
  int64_t findOutput(const std::string &name) const;
  /// "'a', 'b'" -- for "unknown input" messages.
  std::string inputNames() const;
  std::string outputNames() const;

private:
  ArtifactImage() = default;
  Status decode(const std::string &origin);

  format::Artifact artifact;
  std::vector<SignatureView> inputViews, outputViews;
  const uint8_t *base = nullptr;
  uint64_t size = 0;
  bool mapped = false; ///< base is an mmap (else an aligned allocation)
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_ARTIFACTIMAGE_H
