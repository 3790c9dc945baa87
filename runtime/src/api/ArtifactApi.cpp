//===- ArtifactApi.cpp - C API: loading and inspecting artifacts ----------===//

#include "Handles.h"

using namespace tessel::runtime;

namespace {

Status wrap(std::shared_ptr<const ArtifactImage> image,
            tessel_artifact_t **out) {
  *out = new tessel_artifact_t{std::move(image)};
  return Status::ok();
}

Status info(const tessel_artifact_t *a, size_t index, bool input,
            tessel_tensor_info_t *out) {
  TESSEL_RETURN_IF_ERROR(requireNonNull(a, "artifact"));
  TESSEL_RETURN_IF_ERROR(requireNonNull(out, "out_info"));
  const auto &views = input ? a->image->inputs() : a->image->outputs();
  if (index >= views.size())
    return notFound(std::string(input ? "input" : "output") + " index " +
                    std::to_string(index) + " is out of range (the model has " +
                    std::to_string(views.size()) + ")");
  *out = views[index].info;
  return Status::ok();
}

Status find(const tessel_artifact_t *a, const char *name, bool input,
            size_t *out) {
  TESSEL_RETURN_IF_ERROR(requireNonNull(a, "artifact"));
  TESSEL_RETURN_IF_ERROR(requireNonNull(name, "name"));
  TESSEL_RETURN_IF_ERROR(requireNonNull(out, "out_index"));
  const ArtifactImage &image = *a->image;
  int64_t index = input ? image.findInput(name) : image.findOutput(name);
  if (index < 0)
    return input ? notFound(std::string("unknown input '") + name +
                            "' (inputs: " + image.inputNames() + ")")
                 : notFound(std::string("unknown output '") + name +
                            "' (outputs: " + image.outputNames() + ")");
  *out = static_cast<size_t>(index);
  return Status::ok();
}

} // namespace

extern "C" {

tessel_status_t tessel_artifact_load_file(const char *path,
                                          tessel_artifact_t **out_artifact) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(path, "path"));
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_artifact, "out_artifact"));
    std::shared_ptr<const ArtifactImage> image;
    TESSEL_RETURN_IF_ERROR(ArtifactImage::loadFile(path, image));
    return wrap(std::move(image), out_artifact);
  });
}

tessel_status_t tessel_artifact_load_memory(const void *data, size_t size,
                                            tessel_artifact_t **out_artifact) {
  return guarded([&] {
    TESSEL_RETURN_IF_ERROR(requireNonNull(out_artifact, "out_artifact"));
    std::shared_ptr<const ArtifactImage> image;
    TESSEL_RETURN_IF_ERROR(ArtifactImage::loadMemory(data, size, image));
    return wrap(std::move(image), out_artifact);
  });
}

void tessel_artifact_release(tessel_artifact_t *artifact) { delete artifact; }

const char *tessel_artifact_model_name(const tessel_artifact_t *a) {
  return a ? a->image->model().modelName.c_str() : "";
}

const char *tessel_artifact_producer(const tessel_artifact_t *a) {
  return a ? a->image->model().producer.c_str() : "";
}

size_t tessel_artifact_target_count(const tessel_artifact_t *a) {
  return a ? a->image->model().binaries.size() : 0;
}

const char *tessel_artifact_target(const tessel_artifact_t *a, size_t index) {
  if (!a || index >= a->image->model().binaries.size())
    return nullptr;
  return a->image->model().binaries[index].target.c_str();
}

size_t tessel_artifact_input_count(const tessel_artifact_t *a) {
  return a ? a->image->inputs().size() : 0;
}

size_t tessel_artifact_output_count(const tessel_artifact_t *a) {
  return a ? a->image->outputs().size() : 0;
}

tessel_status_t tessel_artifact_input_info(const tessel_artifact_t *a,
                                           size_t index,
                                           tessel_tensor_info_t *out_info) {
  return guarded([&] { return info(a, index, /*input=*/true, out_info); });
}

tessel_status_t tessel_artifact_output_info(const tessel_artifact_t *a,
                                            size_t index,
                                            tessel_tensor_info_t *out_info) {
  return guarded([&] { return info(a, index, /*input=*/false, out_info); });
}

tessel_status_t tessel_artifact_find_input(const tessel_artifact_t *a,
                                           const char *name,
                                           size_t *out_index) {
  return guarded([&] { return find(a, name, /*input=*/true, out_index); });
}

tessel_status_t tessel_artifact_find_output(const tessel_artifact_t *a,
                                            const char *name,
                                            size_t *out_index) {
  return guarded([&] { return find(a, name, /*input=*/false, out_index); });
}

} // extern "C"
