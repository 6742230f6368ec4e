// Checks the stdlib kernels (built for the CPU target by stdlib/CMakeLists.txt)
// through their extern "C" entries, on shapes that are not tile multiples,
// against double-precision references. Prints PASS or the mismatches.
#include <cmath>
#include <cstdio>
#include <vector>

#include "elementwise.h"
#include "gemm_f16_sm86.h"

namespace {

template <typename T>
T* toDevice(const std::vector<T>& host) {
  T* dev = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&dev, host.size() * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return dev;
}

template <typename T>
std::vector<T> toHost(const T* dev, std::size_t n) {
  std::vector<T> host(n);
  CROQ_CUDA_CHECK(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

int checkElementwise(int n) {
  std::vector<float> a(n), b(n);
  std::vector<croq::f16> h(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.25f * i - 3.0f;
    b[i] = 1.5f - 0.125f * i;
    h[i] = croq::utils::from_f32<croq::f16>(float(i % 7) - 3.0f);
  }
  float *da = toDevice(a), *db = toDevice(b), *dout = toDevice(std::vector<float>(n, -1.0f));
  croq::f16* dh = toDevice(h);
  croq_add_f32(da, db, dout, n, nullptr);
  std::vector<float> sum = toHost(dout, n);
  croq_axpby_f32(da, db, 2.0f, -1.0f, n, nullptr);
  std::vector<float> axpby = toHost(db, n);
  croq_relu_f16(dh, n, nullptr);
  std::vector<croq::f16> relu = toHost(dh, n);
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    errors += sum[i] != a[i] + b[i];
    errors += axpby[i] != 2.0f * a[i] - b[i];
    errors += croq::to_f32(relu[i]) != std::fmax(float(i % 7) - 3.0f, 0.0f);
  }
  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dout), static_cast<void*>(dh)})
    CROQ_CUDA_CHECK(cudaFree(p));
  if (errors) std::printf("elementwise n=%d: %d mismatches\n", n, errors);
  return errors;
}

int checkGemm(int m, int n, int k) {
  std::vector<croq::f16> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = croq::utils::from_f32<croq::f16>(float(int(i % 13) - 6) / 8);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = croq::utils::from_f32<croq::f16>(float(int(i % 11) - 5) / 8);
  croq::f16 *da = toDevice(a), *db = toDevice(b);
  croq::f16* dc = toDevice(std::vector<croq::f16>(std::size_t(m) * n));
  croq_gemm_f16_sm86(da, db, dc, m, k, n, nullptr);
  std::vector<croq::f16> c = toHost(dc, std::size_t(m) * n);
  int errors = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < k; ++kk)
        ref += double(croq::to_f32(a[std::size_t(i) * k + kk])) * croq::to_f32(b[std::size_t(j) * k + kk]);
      double got = croq::to_f32(c[std::size_t(i) * n + j]);
      if (!(std::fabs(got - ref) <= 0.01 + 0.004 * std::fabs(ref))) {
        if (errors < 5) std::printf("gemm %dx%dx%d: C[%d][%d] = %g, expected %g\n", m, n, k, i, j, got, ref);
        ++errors;
      }
    }
  for (croq::f16* p : {da, db, dc}) CROQ_CUDA_CHECK(cudaFree(p));
  return errors;
}

}  // namespace

int main() {
  int errors = checkElementwise(1000) + checkElementwise(256) + checkGemm(128, 128, 64) + checkGemm(130, 70, 45);
  std::printf(errors ? "FAIL: %d mismatches\n" : "PASS\n", errors);
  return errors != 0;
}
