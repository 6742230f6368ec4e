// Checks the stdlib kernels (built for the CPU target by stdlib/CMakeLists.txt)
// through their extern "C" entries, on shapes that are not tile multiples,
// against double-precision references computed from the same (rounded)
// inputs. Inputs are random (a fixed seed, printed; CROQ_SEED overrides it),
// outputs are poisoned (NaN) before each call, so an unwritten element fails.
// Prints one line per kernel and shape, then PASS or FAIL.
//
// Tolerances (|got - ref| <= abs + rel |ref|), inputs uniform in [-1, 1):
//   f16 GEMMs (f32 accumulation, f16 output)       0.01 + 0.004 |ref|
//   bf16 GEMMs (f32 accumulation, bf16 output)     0.02 + 0.008 |ref|
//   e4m3 GEMM (inputs in [-2, 2), f16 output)      2^-11 (S + P) + 2^-11 |ref|, where S
//     is the sum of |partial sum| over the k32 steps and P the sum of |product|
//     (see kFp8PartialSumUlp)
//   row sums (f32)                                 1e-5 (sum of |x|) + 1e-6
//   row max                                        exact
//   softmax f32 (fast __exp)                       1e-6 + 1e-4 |ref|
//   softmax f16 (f16 output rounding)              1e-4 + 2e-3 |ref|
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "elementwise.h"
#include "gemm_batched_f16_sm90a.h"
#include "gemm_bf16_sm86.h"
#include "gemm_bf16_sm90a.h"
#include "gemm_e4m3_sm90a.h"
#include "gemm_f16_sm86.h"
#include "gemm_f16_sm90a.h"
#include "rowwise.h"

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 engine([] {
    const char* env = std::getenv("CROQ_SEED");
    const unsigned long long seed = env ? std::strtoull(env, nullptr, 10) : 20261201ULL;
    std::printf("seed %llu\n", seed);
    return seed;
  }());
  return engine;
}

// n random values of T, uniform in [lo, hi) before rounding to T.
template <typename T>
std::vector<T> randomVector(std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = croq::utils::from_f32<T>(dist(rng()));
  return v;
}

template <typename T>
T* toDevice(const std::vector<T>& host) {
  T* dev = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&dev, host.size() * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return dev;
}

// A device buffer of n elements, every byte 0xFF (NaN for the float types).
template <typename T>
T* poisoned(std::size_t n) {
  T* dev = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&dev, n * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMemset(dev, 0xFF, n * sizeof(T)));
  return dev;
}

template <typename T>
std::vector<T> toHost(const T* dev, std::size_t n) {
  std::vector<T> host(n);
  CROQ_CUDA_CHECK(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <typename T>
std::vector<double> toDouble(const std::vector<T>& v) {
  std::vector<double> d(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) d[i] = croq::to_f32(v[i]);
  return d;
}

struct Tolerance {
  double abs, rel;
  // When nonzero, `abs` scales with the sum of |product| plus the sum, over
  // every `partial_every` elements of K (and the end), of the running sum's
  // magnitude; otherwise `abs` is absolute.
  int partial_every = 0;
};

// sm_90's tensor cores add FP8 products into partial sums of about 14
// significant bits, aligned to the largest term (the H200 measured at most
// 2^-11.8 of S, the sum of |partial sum| after each k32 WGMMA, at K = 128 and
// 2^-14.5 of it at K = 4096 and above; cuBLASLt with FAST_ACCUM is the same),
// and the e4m3 GEMM does not promote partial sums into f32 registers; the
// check allows 2^-11 of S plus P, the sum of |product|. On the CPU target the
// error is that of f32.
constexpr double kFp8PartialSumUlp = 1.0 / 2048;

// Compares got with ref element by element; prints the first mismatches and
// a summary line; returns the number of mismatches (NaN is one).
int compare(const std::string& what, const std::vector<double>& got, const std::vector<double>& ref,
            const std::vector<double>& scale, Tolerance tol) {
  int errors = 0;
  double max_err = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(got[i] - ref[i]);
    if (!(err <= tol.abs * scale[i] + tol.rel * std::fabs(ref[i]))) {
      if (errors < 5) std::printf("  %s: element %zu = %.7g, expected %.7g\n", what.c_str(), i, got[i], ref[i]);
      ++errors;
    }
    if (!(err <= max_err)) max_err = err;
  }
  std::printf("%s: max abs error %.3g, %s\n", what.c_str(), max_err, errors ? "MISMATCHES" : "ok");
  return errors;
}

int checkElementwise(int n) {
  std::vector<float> a(n), b(n);
  std::vector<croq::f16> h(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.25f * i - 3.0f;
    b[i] = 1.5f - 0.125f * i;
    h[i] = croq::utils::from_f32<croq::f16>(float(i % 7) - 3.0f);
  }
  float *da = toDevice(a), *db = toDevice(b), *dout = poisoned<float>(n);
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
  std::printf("elementwise n=%d: %s\n", n, errors ? "MISMATCHES" : "ok");
  return errors;
}

// One GEMM problem: `batch` products C[b] = A[b] B[b]^T, A [M, K], B [N, K].
struct GemmShape {
  int batch, m, n, k;
};

// Runs `call(a, b, c)` on random In operands of `shape` (uniform in
// [-range, range)) and compares C (Out) with a double product.
template <typename In, typename Out>
int checkGemm(const char* name, const std::function<void(void*, void*, void*)>& call, GemmShape s, float range,
              Tolerance tol) {
  const std::size_t a_size = std::size_t(s.m) * s.k, b_size = std::size_t(s.n) * s.k, c_size = std::size_t(s.m) * s.n;
  std::vector<In> a = randomVector<In>(s.batch * a_size, -range, range);
  std::vector<In> b = randomVector<In>(s.batch * b_size, -range, range);
  In *da = toDevice(a), *db = toDevice(b);
  Out* dc = poisoned<Out>(s.batch * c_size);
  call(da, db, dc);
  std::vector<double> got = toDouble(toHost(dc, s.batch * c_size));
  std::vector<double> fa = toDouble(a), fb = toDouble(b), ref(got.size()), scale(got.size());
  for (int p = 0; p < s.batch; ++p)
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double acc = 0, partials = 0;
        const double* ar = &fa[p * a_size + std::size_t(i) * s.k];
        const double* br = &fb[p * b_size + std::size_t(j) * s.k];
        for (int kk = 0; kk < s.k; ++kk) {
          acc += ar[kk] * br[kk];
          if (!tol.partial_every) continue;
          partials += std::fabs(ar[kk] * br[kk]);
          if ((kk + 1) % tol.partial_every == 0 || kk + 1 == s.k) partials += std::fabs(acc);
        }
        ref[p * c_size + std::size_t(i) * s.n + j] = acc;
        scale[p * c_size + std::size_t(i) * s.n + j] = tol.partial_every ? partials : 1.0;
      }
  CROQ_CUDA_CHECK(cudaFree(da));
  CROQ_CUDA_CHECK(cudaFree(db));
  CROQ_CUDA_CHECK(cudaFree(dc));
  std::string what = std::string(name) + " " + (s.batch > 1 ? std::to_string(s.batch) + "x" : "") +
                     std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  return compare(what, got, ref, scale, tol);
}

int checkGemms() {
  using croq::bf16;
  using croq::f16;
  using croq::f8_e4m3;
  const Tolerance f16_tol{0.01, 0.004}, bf16_tol{0.02, 0.008}, e4m3_tol{kFp8PartialSumUlp, 1.0 / 2048, 32};
  int errors = 0;
  // Tile multiples, ragged edges in every dimension, and K below one K tile.
  // On the GPU the sm_90a kernels copy with TMA when rows are a multiple of 16
  // bytes (K = 72 for f16/bf16, K = 208 for e4m3: ragged last K tiles) and
  // with ordinary loads otherwise (K = 7, K = 100); the CPU target runs both
  // as the plain copies they stand for.
  for (GemmShape s : {GemmShape{1, 128, 128, 64}, GemmShape{1, 130, 70, 45}}) {
    errors += checkGemm<f16, f16>(
        "gemm_f16_sm86", [&](void* a, void* b, void* c) { croq_gemm_f16_sm86(a, b, c, s.m, s.k, s.n, nullptr); }, s,
        1.0f, f16_tol);
    errors += checkGemm<bf16, bf16>(
        "gemm_bf16_sm86", [&](void* a, void* b, void* c) { croq_gemm_bf16_sm86(a, b, c, s.m, s.k, s.n, nullptr); },
        s, 1.0f, bf16_tol);
  }
  for (GemmShape s : {GemmShape{1, 256, 256, 192}, GemmShape{1, 130, 270, 72}, GemmShape{1, 40, 24, 7}}) {
    errors += checkGemm<f16, f16>(
        "gemm_f16_sm90a", [&](void* a, void* b, void* c) { croq_gemm_f16_sm90a(a, b, c, s.m, s.k, s.n, nullptr); },
        s, 1.0f, f16_tol);
    errors += checkGemm<bf16, bf16>(
        "gemm_bf16_sm90a", [&](void* a, void* b, void* c) { croq_gemm_bf16_sm90a(a, b, c, s.m, s.k, s.n, nullptr); },
        s, 1.0f, bf16_tol);
  }
  for (GemmShape s : {GemmShape{1, 128, 256, 256}, GemmShape{1, 130, 270, 208}, GemmShape{1, 70, 40, 100}}) {
    errors += checkGemm<f8_e4m3, f16>(
        "gemm_e4m3_sm90a", [&](void* a, void* b, void* c) { croq_gemm_e4m3_sm90a(a, b, c, s.m, s.k, s.n, nullptr); },
        s, 2.0f, e4m3_tol);
  }
  for (GemmShape s : {GemmShape{2, 128, 256, 64}, GemmShape{3, 130, 70, 72}}) {
    errors += checkGemm<f16, f16>(
        "gemm_batched_f16_sm90a",
        [&](void* a, void* b, void* c) { croq_gemm_batched_f16_sm90a(a, b, c, s.batch, s.m, s.k, s.n, nullptr); }, s,
        1.0f, f16_tol);
  }
  return errors;
}

// Random rows; row 1 (when there is one) is shifted by +1000, whose exp()
// overflows f32 unless the softmax subtracts the row maximum first.
template <typename T>
std::vector<T> randomRows(int m, int n) {
  std::vector<T> x = randomVector<T>(std::size_t(m) * n, -8.0f, 8.0f);
  if (m > 1)
    for (int j = 0; j < n; ++j) x[std::size_t(n) + j] = croq::utils::from_f32<T>(croq::to_f32(x[std::size_t(n) + j]) + 1000.0f);
  return x;
}

// The reductions of x [M, N] (T) into f32 [M], and the softmax of x.
template <typename T>
int checkRowwise(int m, int n) {
  const std::string shape = std::to_string(m) + "x" + std::to_string(n);
  std::vector<T> x = randomRows<T>(m, n);
  std::vector<double> fx = toDouble(x);
  std::vector<double> sum(m, 0), abs_sum(m, 0), max(m, -std::numeric_limits<double>::infinity());
  std::vector<double> soft(fx.size());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const double v = fx[std::size_t(i) * n + j];
      sum[i] += v;
      abs_sum[i] += std::fabs(v);
      max[i] = std::fmax(max[i], v);
    }
    double e = 0;
    for (int j = 0; j < n; ++j) e += std::exp(fx[std::size_t(i) * n + j] - max[i]);
    for (int j = 0; j < n; ++j) soft[std::size_t(i) * n + j] = std::exp(fx[std::size_t(i) * n + j] - max[i]) / e;
  }
  T* dx = toDevice(x);
  float* dout = poisoned<float>(m);
  T* dy = poisoned<T>(x.size());
  int errors = 0;
  std::vector<double> sum_scale(m);
  for (int i = 0; i < m; ++i) sum_scale[i] = 1e-5 * abs_sum[i] + 1e-6;
  if constexpr (std::is_same_v<T, float>) {
    croq_row_sum_f32(dx, dout, m, n, nullptr);
    errors += compare("row_sum_f32 " + shape, toDouble(toHost(dout, m)), sum, sum_scale, {1.0, 0.0});
    CROQ_CUDA_CHECK(cudaMemset(dout, 0xFF, m * sizeof(float)));
    croq_row_max_f32(dx, dout, m, n, nullptr);
    errors += compare("row_max_f32 " + shape, toDouble(toHost(dout, m)), max, std::vector<double>(m, 0.0), {0.0, 0.0});
    croq_softmax_f32(dx, dy, m, n, nullptr);
    errors += compare("softmax_f32 " + shape, toDouble(toHost(dy, x.size())), soft,
                      std::vector<double>(soft.size(), 1.0), {1e-6, 1e-4});
  } else {
    croq_row_sum_f16(dx, dout, m, n, nullptr);
    errors += compare("row_sum_f16 " + shape, toDouble(toHost(dout, m)), sum, sum_scale, {1.0, 0.0});
    croq_softmax_f16(dx, dy, m, n, nullptr);
    errors += compare("softmax_f16 " + shape, toDouble(toHost(dy, x.size())), soft,
                      std::vector<double>(soft.size(), 1.0), {1e-4, 2e-3});
  }
  CROQ_CUDA_CHECK(cudaFree(dx));
  CROQ_CUDA_CHECK(cudaFree(dout));
  CROQ_CUDA_CHECK(cudaFree(dy));
  return errors;
}

}  // namespace

int main() {
  rng();  // prints the seed
  int errors = checkElementwise(1000) + checkElementwise(256);
  errors += checkGemms();
  // One element, fewer columns than threads, a column count just past a
  // multiple of the 256 threads, and a tall thin matrix.
  for (auto [m, n] : {std::pair{1, 1}, std::pair{5, 3}, std::pair{7, 1025}, std::pair{300, 40}}) {
    errors += checkRowwise<float>(m, n);
    errors += checkRowwise<croq::f16>(m, n);
  }
  std::printf(errors ? "FAIL: %d mismatches\n" : "PASS\n", errors);
  return errors != 0;
}
