/* embed-c: runs a compiled Tessel model from C.
 *
 *   embed-c MODEL.tsl [--device cpu|cuda|hip] NAME=FILE.npy...
 *
 * Loads the artifact, opens the device, creates a session, binds each input
 * from its .npy file, runs once and prints every output: its name, dtype
 * and shape, then up to 64 values. */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the status's message and returns 1 if `s` is an error. */
static int failed(tessel_status_t s, const char *what) {
  if (!s)
    return 0;
  fprintf(stderr, "embed-c: %s: %s (%s)\n", what, tessel_status_message(s),
          tessel_status_code_name(tessel_status_code(s)));
  tessel_status_free(s);
  return 1;
}

static void print_value(const tessel_tensor_view_t *v, size_t i) {
  const void *p = v->data;
  switch (v->dtype) {
  case TESSEL_DTYPE_FLOAT32: printf(" %.9g", ((const float *)p)[i]); break;
  case TESSEL_DTYPE_FLOAT64: printf(" %.17g", ((const double *)p)[i]); break;
  case TESSEL_DTYPE_INT64: printf(" %lld", (long long)((const int64_t *)p)[i]); break;
  case TESSEL_DTYPE_INT32: printf(" %d", ((const int32_t *)p)[i]); break;
  case TESSEL_DTYPE_INT8: printf(" %d", ((const int8_t *)p)[i]); break;
  case TESSEL_DTYPE_UINT8:
  case TESSEL_DTYPE_BOOL: printf(" %u", ((const uint8_t *)p)[i]); break;
  default: printf(" ?"); break;
  }
}

int main(int argc, char **argv) {
  const char *model = NULL, *device_spec = "cpu";
  int first_input = argc;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device_spec = argv[++i];
    } else if (!model) {
      model = argv[i];
    } else {
      first_input = i;
      break;
    }
  }
  if (!model) {
    fprintf(stderr, "usage: embed-c MODEL.tsl [--device D] NAME=FILE.npy...\n");
    return 2;
  }

  tessel_artifact_t *artifact = NULL;
  tessel_device_t *device = NULL;
  tessel_session_t *session = NULL;
  int rc = 1;
  if (failed(tessel_artifact_load_file(model, &artifact), "load") ||
      failed(tessel_device_create(device_spec, &device), "device") ||
      failed(tessel_session_create(artifact, device, &session), "session"))
    goto done;

  for (int i = first_input; i < argc; ++i) {
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      fprintf(stderr, "embed-c: expected NAME=FILE.npy, got '%s'\n", argv[i]);
      goto done;
    }
    *eq = '\0';
    npy_array array;
    char error[512];
    if (npy_load(eq + 1, &array, error, sizeof error)) {
      fprintf(stderr, "embed-c: %s\n", error);
      goto done;
    }
    /* The session copies the data: the array may be freed at once. */
    int bad = failed(tessel_session_set_input(session, argv[i], array.dtype,
                                              array.rank, array.dims,
                                              array.data, array.bytes),
                     argv[i]);
    npy_free(&array);
    if (bad)
      goto done;
  }

  if (failed(tessel_session_run(session), "run"))
    goto done;

  for (size_t o = 0; o < tessel_artifact_output_count(artifact); ++o) {
    tessel_tensor_info_t info;
    tessel_tensor_view_t view;
    if (failed(tessel_artifact_output_info(artifact, o, &info), "output") ||
        failed(tessel_session_get_output(session, info.name, &view), info.name))
      goto done;
    printf("output '%s' %s [", info.name, tessel_dtype_name(view.dtype));
    size_t elements = 1;
    for (size_t d = 0; d < view.rank; ++d) {
      printf(d ? ", %lld" : "%lld", (long long)view.dims[d]);
      elements *= (size_t)view.dims[d];
    }
    printf("]\n ");
    for (size_t i = 0; i < elements && i < 64; ++i)
      print_value(&view, i);
    printf(elements > 64 ? " ...\n" : "\n");
  }
  rc = 0;

done:
  tessel_session_release(session);
  tessel_device_release(device);
  tessel_artifact_release(artifact);
  return rc;
}
