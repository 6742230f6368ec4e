// Calls the kernels of kernels/*.co through the headers croqc_add_kernels
// generates: saxpy through its extern "C" entry on device memory, row_sum
// through its C++ wrapper on host spans, the stdlib's add_f32 (elementwise.co)
// through its extern "C" entry.
#include <cmath>
#include <cstdio>
#include <vector>

#include "elementwise.h"
#include "row_sum.h"
#include "saxpy.h"

// Defined by the host code of saxpy.co.
int saxpy_header_version();

int main() {
  const int n = 1000;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1.0f - i;
    want[i] = 3.0f * x[i] + y[i];
  }
  float *dx = nullptr, *dy = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CROQ_CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CROQ_CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CROQ_CUDA_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  croq_saxpy(dx, dy, 3.0f, n, nullptr);
  CROQ_CUDA_CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int errors = 0;
  for (int i = 0; i < n; ++i) errors += y[i] != want[i];
  // The stdlib: y = x + y on the same device buffers.
  croq_add_f32(dx, dy, dy, n, nullptr);
  CROQ_CUDA_CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) errors += y[i] != x[i] + want[i];

  auto m = croq::make_spandata<float>(7, 33);
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < 33; ++c) m[r][c] = float(r * 100 + c);
  auto sums = row_sum(m.view());
  for (int r = 0; r < 7; ++r) {
    float expected = 0;
    for (int c = 0; c < 33; ++c) expected += float(r * 100 + c);
    errors += std::fabs(sums[r] - expected) > 1e-3f;
  }
  CROQ_CUDA_CHECK(cudaFree(dx));
  CROQ_CUDA_CHECK(cudaFree(dy));
  std::printf("%s (saxpy %d elements, row_sum 7 rows, scale.h version %d)\n", errors ? "FAIL" : "PASS", n,
              saxpy_header_version());
  return errors != 0;
}
