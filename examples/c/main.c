/* The quickstart's two Triton kernels called from C (C99): quickstart.h declares
 *   int quickstart_vector_add(const float* x, const float* y, float* out, int32_t n, float alpha,
 *                             tritonpack_stream_t stream);
 *   int quickstart_row_softmax(float* out, const float* inp, int32_t n_rows, int32_t n_cols,
 *                              int32_t in_stride, int32_t out_stride, tritonpack_stream_t stream);
 * each returning TRITONPACK_SUCCESS or an error code, with quickstart_last_error() for the message.
 * Device memory comes from the run time's C API (<tritonpack/c/tritonpack.h>): no CUDA toolkit.
 *
 * On a GPU it runs both kernels, checks them against a CPU reference and exits 0 when they match.
 * Without a GPU it says why it cannot launch and exits 0 (1 with --require-gpu), as the C++
 * quickstart does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quickstart.h>
#include <tritonpack/c/tritonpack.h>

/* Every call's status checked: a failure prints the call, its code and the message, and exits 1. */
#define CHECK(call, last_error)                                                                  \
  do {                                                                                           \
    const int status_ = (call);                                                                  \
    if (status_ != TRITONPACK_SUCCESS) {                                                         \
      fprintf(stderr, "error: %s failed [%s]\n  %s\n", #call, tritonpack_status_name(status_),   \
              last_error());                                                                     \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)
#define CHECK_TP(call) CHECK(call, tritonpack_last_error)
#define CHECK_QS(call) CHECK(call, quickstart_last_error)

static float* random_floats(size_t n, unsigned seed, float lo, float hi) {
  float* v = malloc(n * sizeof *v);
  if (!v) {
    fprintf(stderr, "error: out of host memory\n");
    exit(1);
  }
  srand(seed);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
  return v;
}

/* How many of got[0..n) differ from want beyond rtol/atol (a NaN counts). */
static size_t mismatches(const float* got, const float* want, size_t n, double rtol, double atol) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = fabs((double)got[i] - (double)want[i]);
    if (!(e <= atol + rtol * fabs((double)want[i]))) ++bad;
  }
  return bad;
}

/* out = x + alpha * y on 1M elements (variant 0: aligned, n % 16 == 0), then on an odd count at an
 * unaligned pointer (variant 1). */
static int run_vector_add(void) {
  const int32_t n = 1 << 20, m = 100003;
  const float alpha = 2.5f;
  const size_t bytes = (size_t)n * sizeof(float);
  float* x = random_floats((size_t)n, 1, -1.f, 1.f);
  float* y = random_floats((size_t)n, 2, -1.f, 1.f);
  float* want = malloc(bytes);
  float* got = malloc(bytes);
  if (!want || !got) return 0;
  for (int32_t i = 0; i < n; ++i) want[i] = x[i] + alpha * y[i];

  void *dx, *dy, *dout;
  CHECK_TP(tritonpack_malloc(&dx, bytes));
  CHECK_TP(tritonpack_malloc(&dy, bytes));
  CHECK_TP(tritonpack_malloc(&dout, bytes + 2 * sizeof(float)));
  CHECK_TP(tritonpack_copy(dx, x, bytes));
  CHECK_TP(tritonpack_copy(dy, y, bytes));
  CHECK_TP(tritonpack_memset(dout, 0xFF, bytes + 2 * sizeof(float))); /* NaN: a missed element shows */
  CHECK_QS(quickstart_vector_add(dx, dy, dout, n, alpha, NULL));
  CHECK_TP(tritonpack_synchronize());
  CHECK_TP(tritonpack_copy(got, dout, bytes));
  const size_t bad = mismatches(got, want, (size_t)n, 1e-6, 1e-6);

  CHECK_TP(tritonpack_memset(dout, 0xFF, bytes + 2 * sizeof(float)));
  CHECK_QS(quickstart_vector_add(dx, dy, (float*)dout + 1, m, alpha, NULL));
  CHECK_TP(tritonpack_copy(got, dout, (size_t)(m + 2) * sizeof(float)));
  const size_t bad_odd = mismatches(got + 1, want, (size_t)m, 1e-6, 1e-6);
  const int edges_ok = isnan(got[0]) && isnan(got[m + 1]);

  printf("vector_add   n = %d: %s (%zu of %d wrong)\n", (int)n, bad ? "FAILED" : "ok", bad, (int)n);
  printf("             n = %d at an unaligned pointer: %s (%zu wrong%s)\n", (int)m,
         bad_odd || !edges_ok ? "FAILED" : "ok", bad_odd, edges_ok ? "" : ", written outside");
  CHECK_TP(tritonpack_free(dx));
  CHECK_TP(tritonpack_free(dy));
  CHECK_TP(tritonpack_free(dout));
  free(x), free(y), free(want), free(got);
  return !bad && !bad_odd && edges_ok;
}

/* Softmax of 512 rows of 781 columns in rows of 800 floats, written into rows of 784. */
static int run_row_softmax(void) {
  const int32_t rows = 512, cols = 781, in_stride = 800, out_stride = 784;
  const size_t in_n = (size_t)rows * in_stride, out_n = (size_t)rows * out_stride;
  float* in = random_floats(in_n, 3, -8.f, 8.f);
  float* want = malloc(out_n * sizeof(float));
  float* got = malloc(out_n * sizeof(float));
  if (!want || !got) return 0;
  for (int32_t r = 0; r < rows; ++r) {
    const float* row = in + (size_t)r * in_stride;
    float mx = row[0];
    double sum = 0;
    for (int32_t j = 1; j < cols; ++j) mx = row[j] > mx ? row[j] : mx;
    for (int32_t j = 0; j < cols; ++j) sum += exp((double)row[j] - mx);
    for (int32_t j = 0; j < out_stride; ++j)
      want[(size_t)r * out_stride + j] = j < cols ? (float)(exp((double)row[j] - mx) / sum) : NAN;
  }
  void *din, *dout;
  CHECK_TP(tritonpack_malloc(&din, in_n * sizeof(float)));
  CHECK_TP(tritonpack_malloc(&dout, out_n * sizeof(float)));
  CHECK_TP(tritonpack_copy(din, in, in_n * sizeof(float)));
  CHECK_TP(tritonpack_memset(dout, 0xFF, out_n * sizeof(float)));
  CHECK_QS(quickstart_row_softmax(dout, din, rows, cols, in_stride, out_stride, NULL));
  CHECK_TP(tritonpack_copy(got, dout, out_n * sizeof(float)));
  size_t bad = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const size_t at = (size_t)r * out_stride;
    bad += mismatches(got + at, want + at, (size_t)cols, 1e-4, 1e-6);
    for (int32_t j = cols; j < out_stride; ++j) bad += !isnan(got[at + j]); /* padding untouched */
  }
  printf("row_softmax  %d x %d (strides %d, %d): %s (%zu wrong)\n", (int)rows, (int)cols, (int)in_stride,
         (int)out_stride, bad ? "FAILED" : "ok", bad);
  CHECK_TP(tritonpack_free(din));
  CHECK_TP(tritonpack_free(dout));
  free(in), free(want), free(got);
  return !bad;
}

int main(int argc, char** argv) {
  int require_gpu = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--require-gpu") == 0) {
      require_gpu = 1;
    } else {
      fprintf(stderr, "usage: %s [--require-gpu]\n", argv[0]);
      return 2;
    }
  }
  printf("tritonpack quickstart: Triton kernels in a C program\n\n");
  int count = 0;
  CHECK_TP(tritonpack_device_count(&count));
  if (count == 0) {
    /* What any kernel call says on this machine: nothing is launched, so no memory is needed. */
    const int status = quickstart_vector_add(NULL, NULL, NULL, 16, 1.0f, NULL);
    printf("Cannot launch here: %s\n[%s]\n\n", quickstart_last_error(), tritonpack_status_name(status));
    printf("Nothing is wrong with the program: run it on a node with an NVIDIA GPU; it needs only the\n"
           "GPU driver (no CUDA toolkit, Python or PyTorch).\n");
    return require_gpu ? 1 : 0;
  }
  char name[256], arch[64];
  CHECK_TP(tritonpack_device_name(-1, name, sizeof name));
  CHECK_TP(tritonpack_device_arch(-1, arch, sizeof arch));
  printf("GPU: %s (%s)\n\n", name, arch);
  const int ok = run_vector_add() & run_row_softmax();
  printf("\n%s\n", ok ? "All results match the CPU reference." : "MISMATCH: see above.");
  return ok ? 0 : 1;
}
