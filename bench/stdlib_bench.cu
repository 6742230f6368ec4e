// stdlib_bench: the stdlib kernels (stdlib/*.co, called through their
// extern "C" entries) against cuBLAS and simple CUDA baselines, in one
// process, on the same data.
//
//   GEMMs, C[M, N] = A[M, K] B[N, K]^T (row-major, f32 accumulation):
//     gemm_f16_sm90a, gemm_f16_sm86      vs cublasGemmEx (16F in/out, COMPUTE_32F)
//     gemm_bf16_sm90a, gemm_bf16_sm86    vs cublasGemmEx (16BF in/out, COMPUTE_32F)
//     gemm_e4m3_sm90a                    vs cublasLtMatmul (8F_E4M3 in, 16F out,
//                                        COMPUTE_32F), default and FAST_ACCUM
//                                        (skipped, with the status, where
//                                        cuBLASLt returns no algorithm)
//     gemm_batched_f16_sm90a             vs cublasGemmStridedBatchedEx, 8 matrices
//                                        of (M/2) x (N/2) x (K/2) (rounded up)
//   Row-wise, x [R, C] (default 8192 x 8192, and 4095 x 4095):
//     row_sum_f32, row_max_f32, row_sum_f16, softmax_f32, softmax_f16
//                                        vs the CUDA kernels below (one block of
//                                        256 threads per row, warp shuffles)
//
// Each kernel: its output poisoned (NaN), one checked run, 5 warm-up runs,
// then 25 runs each timed with CUDA events on the default stream (the entry
// and its launch included, as for cuBLAS); the median is printed as ms and
// TFLOP/s (2 M N K / time) or GB/s (the bytes a kernel must move: the input
// once plus the output), with the ratio to the baseline (> 1: faster).
// Check: every GEMM's C against the baseline's C on a sample (the first and
// last rows, the last column and 4096 random elements), tolerance 0.05 +
// 0.01 |ref| (both round an f32 sum to 16 bits); the FP8 GEMM (and cuBLASLt)
// on the same sample against a double product, within the bound of
// fp8WithinBound (FP8 tensor-core partial sums). Row-wise outputs
// against the baseline on every element: sums 1e-4 |ref| + 1e-3, max exact,
// softmax 1e-6 + 1e-3 |ref| (f16: 1e-4 + 4e-3 |ref|).
// One line `PASS: name SIZE` or `FAIL: name SIZE` per kernel and size; exit
// status 1 when any check fails.
//
//   stdlib_bench                 GEMMs at 4096^3 and 4095^3, row-wise at 8192^2 and 4095^2
//   stdlib_bench 2048 1000       GEMMs at these cubes (row-wise at the defaults)
// (.device/stdlib.sh builds it: every stdlib .co with croqc -c --arch=sm_90a,
// then nvcc bench/stdlib_bench.cu *.o -lcublas -lcublasLt; docs/stdlib.md has
// the commands.)

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gemm_batched_f16_sm90a.h"
#include "gemm_bf16_sm86.h"
#include "gemm_bf16_sm90a.h"
#include "gemm_e4m3_sm90a.h"
#include "gemm_f16_sm86.h"
#include "gemm_f16_sm90a.h"
#include "rowwise.h"

namespace {

#define CHECK_CUBLAS(x)                                                                        \
  do {                                                                                         \
    cublasStatus_t s_ = (x);                                                                   \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

constexpr int kWarmup = 5;
constexpr int kRuns = 25;
int g_failures = 0;

void verdict(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
  g_failures += !ok;
}

// Median milliseconds of kRuns calls of f, each between two CUDA events,
// after kWarmup untimed calls.
double medianMs(const std::function<void()>& f) {
  cudaEvent_t start, stop;
  CROQ_CUDA_CHECK(cudaEventCreate(&start));
  CROQ_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < kWarmup; ++i) f();
  std::vector<float> ms(kRuns);
  for (float& t : ms) {
    CROQ_CUDA_CHECK(cudaEventRecord(start));
    f();
    CROQ_CUDA_CHECK(cudaEventRecord(stop));
    CROQ_CUDA_CHECK(cudaEventSynchronize(stop));
    CROQ_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaEventDestroy(start));
  CROQ_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[kRuns / 2];
}

template <typename T>
float toFloat(T x) {
  if constexpr (std::is_same_v<T, float>)
    return x;
  else
    return float(x);
}

// A device buffer of n random T, uniform in [lo, hi) before rounding.
template <typename T>
T* randomDevice(std::size_t n, float lo, float hi, std::mt19937_64& rng, std::vector<T>* keep = nullptr) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> host(n);
  for (T& x : host) x = T(dist(rng));
  T* dev = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&dev, n * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMemcpy(dev, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  if (keep) *keep = std::move(host);
  return dev;
}

template <typename T>
std::vector<float> hostFloats(const T* dev, std::size_t n) {
  std::vector<T> host(n);
  CROQ_CUDA_CHECK(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<float> f(n);
  for (std::size_t i = 0; i < n; ++i) f[i] = toFloat(host[i]);
  return f;
}

// The sample of C [rows, cols] (of `batch` matrices) that the GEMM checks read.
std::vector<std::size_t> gemmSample(std::size_t batch, int rows, int cols, std::mt19937_64& rng, int random_count) {
  std::vector<std::size_t> idx;
  const std::size_t mat = std::size_t(rows) * cols;
  for (std::size_t b = 0; b < batch; b += std::max<std::size_t>(1, batch - 1)) {
    for (int j = 0; j < cols; ++j) idx.push_back(b * mat + j);
    for (int j = 0; j < cols; ++j) idx.push_back(b * mat + std::size_t(rows - 1) * cols + j);
    for (int i = 0; i < rows; ++i) idx.push_back(b * mat + std::size_t(i) * cols + cols - 1);
  }
  std::uniform_int_distribution<std::size_t> any(0, batch * mat - 1);
  for (int i = 0; i < random_count; ++i) idx.push_back(any(rng));
  return idx;
}

// Compares got with ref at the sampled indices; prints the worst error.
bool sameOnSample(const std::vector<float>& got, const std::vector<float>& ref, const std::vector<std::size_t>& idx,
                  double abs_tol, double rel_tol) {
  double worst = 0;
  bool ok = true;
  for (std::size_t i : idx) {
    const double err = std::fabs(double(got[i]) - ref[i]);
    ok &= err <= abs_tol + rel_tol * std::fabs(ref[i]);  // NaN fails
    if (!(err <= worst)) worst = err;
  }
  std::printf("    check on %zu elements: max abs error %.3g\n", idx.size(), worst);
  return ok;
}

void printRow(const char* name, const std::string& unit, double ms, double amount, double base_ms) {
  const double rate = amount / (ms * 1e-3) / (unit == "TFLOP/s" ? 1e12 : 1e9);
  if (base_ms > 0)
    std::printf("  %-26s %9.4f ms %9.1f %s  x%.3f of the baseline\n", name, ms, rate, unit.c_str(), base_ms / ms);
  else
    std::printf("  %-26s %9.4f ms %9.1f %s\n", name, ms, rate, unit.c_str());
}

// ---------------------------------------------------------------------------
// GEMMs
// ---------------------------------------------------------------------------

struct Gemm {
  const char* name;
  // Calls the stdlib entry: (a, b, c, batch, m, k, n).
  std::function<void(void*, void*, void*, int, int, int, int)> run;
};

// cuBLAS in row-major terms: C^T [N, M] = B [N, K] (op T) * A^T (op N), all
// column-major with leading dimension K, K and N.
void cublasGemm(cublasHandle_t h, cudaDataType_t type, const void* a, const void* b, void* c, int batch, int m, int k,
                int n) {
  const float alpha = 1.0f, beta = 0.0f;
  if (batch == 1)
    CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, type, k, a, type, k, &beta, c, type, n,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  else
    CHECK_CUBLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, type, k,
                                            (long long)n * k, a, type, k, (long long)m * k, &beta, c, type, n,
                                            (long long)m * n, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// The 16-bit GEMMs of element type T (f16 or bf16) against cublasGemmEx.
template <typename T>
void benchGemm16(cublasHandle_t h, cudaDataType_t type, const std::vector<Gemm>& kernels, int batch, int m, int n,
                 int k, std::mt19937_64& rng) {
  const std::size_t a_n = std::size_t(batch) * m * k, b_n = std::size_t(batch) * n * k, c_n = std::size_t(batch) * m * n;
  T* a = randomDevice<T>(a_n, -1, 1, rng);
  T* b = randomDevice<T>(b_n, -1, 1, rng);
  T *c_ref = nullptr, *c = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&c_ref, c_n * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMalloc(&c, c_n * sizeof(T)));
  const double flops = 2.0 * batch * m * double(n) * k;
  auto base = [&] { cublasGemm(h, type, a, b, c_ref, batch, m, k, n); };
  base();
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> ref = hostFloats(c_ref, c_n);
  const double base_ms = medianMs(base);
  printRow(batch > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx", "TFLOP/s", base_ms, flops, 0);
  const std::vector<std::size_t> sample = gemmSample(batch, m, n, rng, 4096);
  for (const Gemm& g : kernels) {
    CROQ_CUDA_CHECK(cudaMemset(c, 0xFF, c_n * sizeof(T)));
    auto run = [&] { g.run(a, b, c, batch, m, k, n); };
    run();
    CROQ_CUDA_CHECK(cudaDeviceSynchronize());
    const bool ok = sameOnSample(hostFloats(c, c_n), ref, sample, 0.05, 0.01);
    printRow(g.name, "TFLOP/s", medianMs(run), flops, base_ms);
    verdict(ok, std::string(g.name) + " " + (batch > 1 ? std::to_string(batch) + "x" : "") + std::to_string(m) +
                    "x" + std::to_string(n) + "x" + std::to_string(k));
  }
  for (T* p : {a, b, c, c_ref}) CROQ_CUDA_CHECK(cudaFree(p));
}

// cublasLt FP8 (e4m3 A and B, f16 D): the TN layout of cublasGemm above.
// Returns false, with the reason, when cuBLASLt has no algorithm for it.
struct LtFp8 {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  void* workspace = nullptr;
  std::size_t workspace_size = 32 << 20;

  bool init(int m, int k, int n, bool fast_accum) {
    CHECK_CUBLAS(cublasLtCreate(&lt));
    CHECK_CUBLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    const std::int8_t fast = fast_accum;
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof(nn)));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, n, k));  // B [N, K] row-major
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, m, k));  // A [M, K] row-major
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, n, m, n));      // C [M, N] row-major
    CROQ_CUDA_CHECK(cudaMalloc(&workspace, workspace_size));
    cublasLtMatmulPreference_t pref;
    CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_size,
                                                      sizeof(workspace_size)));
    int found = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &algo, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS || found == 0) {
      std::printf("  cublasLtMatmul (FP8 e4m3): no algorithm for %d x %d x %d (status %d)\n", m, n, k, int(s));
      return false;
    }
    return true;
  }
  void run(const void* a, const void* b, void* c) const {
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_CUBLAS(cublasLtMatmul(lt, op, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &algo.algo, workspace,
                                workspace_size, nullptr));
  }
  ~LtFp8() {
    if (workspace) cudaFree(workspace);
    for (cublasLtMatrixLayout_t l : {la, lb, lc})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (op) cublasLtMatmulDescDestroy(op);
    if (lt) cublasLtDestroy(lt);
  }
};

// The FP8 GEMM's check: C on the sample of gemmSample against a double
// product, within 2^-11 (S + P) + 2^-11 |ref| + 2^-24, where S is the sum of
// |partial sum| after each k32 step and P the sum of |product|. sm_90's
// tensor cores add FP8 products into partial sums of about 14 significant
// bits, aligned to the largest term, and neither gemm_e4m3_sm90a nor
// cuBLASLt with FAST_ACCUM promotes them into f32 registers; cuBLASLt's
// default mode does, and is far inside the bound. Prints the largest error
// and its share of the bound.
// The double product and the FP8 bound at each sampled element.
struct Fp8Reference {
  std::vector<double> value, bound;
};

Fp8Reference fp8Reference(const std::vector<__nv_fp8_e4m3>& ha, const std::vector<__nv_fp8_e4m3>& hb,
                          const std::vector<std::size_t>& idx, int n, int k) {
  Fp8Reference r;
  for (std::size_t e : idx) {
    const std::size_t i = e / n, j = e % n;
    double acc = 0, partials = 0;
    for (int kk = 0; kk < k; ++kk) {
      const double p = double(float(ha[i * k + kk])) * double(float(hb[j * k + kk]));
      acc += p;
      partials += std::fabs(p);
      if ((kk + 1) % 32 == 0 || kk + 1 == k) partials += std::fabs(acc);
    }
    r.value.push_back(acc);
    r.bound.push_back(0x1p-11 * partials + 0x1p-11 * std::fabs(acc) + 0x1p-24);
  }
  return r;
}

bool fp8WithinBound(const char* name, const std::vector<float>& got, const Fp8Reference& ref,
                    const std::vector<std::size_t>& idx) {
  bool ok = true;
  double worst = 0, worst_share = 0;
  for (std::size_t t = 0; t < idx.size(); ++t) {
    const double err = std::fabs(double(got[idx[t]]) - ref.value[t]);
    ok &= err <= ref.bound[t];  // NaN fails
    if (!(err <= worst)) worst = err;
    if (!(err / ref.bound[t] <= worst_share)) worst_share = err / ref.bound[t];
  }
  std::printf("    %s: check on %zu elements against a double product: max abs error %.3g, %.2f of the FP8 bound\n",
              name, idx.size(), worst, worst_share);
  return ok;
}

void benchGemmE4m3(int m, int n, int k, std::mt19937_64& rng) {
  const std::size_t a_n = std::size_t(m) * k, b_n = std::size_t(n) * k, c_n = std::size_t(m) * n;
  std::vector<__nv_fp8_e4m3> ha, hb;
  __nv_fp8_e4m3* a = randomDevice<__nv_fp8_e4m3>(a_n, -2, 2, rng, &ha);
  __nv_fp8_e4m3* b = randomDevice<__nv_fp8_e4m3>(b_n, -2, 2, rng, &hb);
  __half *c = nullptr, *c_ref = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&c, c_n * sizeof(__half)));
  CROQ_CUDA_CHECK(cudaMalloc(&c_ref, c_n * sizeof(__half)));
  const double flops = 2.0 * m * double(n) * k;
  const std::vector<std::size_t> idx = gemmSample(1, m, n, rng, 4096);
  const Fp8Reference ref = fp8Reference(ha, hb, idx, n, k);
  // cuBLASLt twice: its default mode (partial sums promoted into f32) and
  // FAST_ACCUM (the tensor core's partial sums, as gemm_e4m3_sm90a); the
  // ratio is against the faster.
  double base_ms = 0;
  for (bool fast : {false, true}) {
    LtFp8 lt;
    if (!lt.init(m, k, n, fast)) continue;
    auto base = [&] { lt.run(a, b, c_ref); };
    CROQ_CUDA_CHECK(cudaMemset(c_ref, 0xFF, c_n * sizeof(__half)));
    base();
    CROQ_CUDA_CHECK(cudaDeviceSynchronize());
    const char* name = fast ? "cublasLtMatmul (e4m3 fast)" : "cublasLtMatmul (e4m3)";
    fp8WithinBound(name, hostFloats(c_ref, c_n), ref, idx);
    const double ms = medianMs(base);
    printRow(name, "TFLOP/s", ms, flops, 0);
    if (base_ms == 0 || ms < base_ms) base_ms = ms;
  }
  CROQ_CUDA_CHECK(cudaMemset(c, 0xFF, c_n * sizeof(__half)));
  auto run = [&] { croq_gemm_e4m3_sm90a(a, b, c, m, k, n, nullptr); };
  run();
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  const bool ok = fp8WithinBound("gemm_e4m3_sm90a", hostFloats(c, c_n), ref, idx);
  printRow("gemm_e4m3_sm90a", "TFLOP/s", medianMs(run), flops, base_ms);
  verdict(ok, "gemm_e4m3_sm90a " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  CROQ_CUDA_CHECK(cudaFree(a));
  CROQ_CUDA_CHECK(cudaFree(b));
  CROQ_CUDA_CHECK(cudaFree(c));
  CROQ_CUDA_CHECK(cudaFree(c_ref));
}

void benchGemms(cublasHandle_t h, int size, std::mt19937_64& rng) {
  const int s = size, half = (size + 1) / 2;
  std::printf("GEMM %d x %d x %d\n", s, s, s);
  benchGemm16<__half>(h, CUDA_R_16F,
                      {{"gemm_f16_sm90a", [](void* a, void* b, void* c, int, int m, int k, int n) {
                          croq_gemm_f16_sm90a(a, b, c, m, k, n, nullptr);
                        }},
                       {"gemm_f16_sm86", [](void* a, void* b, void* c, int, int m, int k, int n) {
                          croq_gemm_f16_sm86(a, b, c, m, k, n, nullptr);
                        }}},
                      1, s, s, s, rng);
  benchGemm16<__nv_bfloat16>(h, CUDA_R_16BF,
                             {{"gemm_bf16_sm90a", [](void* a, void* b, void* c, int, int m, int k, int n) {
                                 croq_gemm_bf16_sm90a(a, b, c, m, k, n, nullptr);
                               }},
                              {"gemm_bf16_sm86", [](void* a, void* b, void* c, int, int m, int k, int n) {
                                 croq_gemm_bf16_sm86(a, b, c, m, k, n, nullptr);
                               }}},
                             1, s, s, s, rng);
  benchGemmE4m3(s, s, s, rng);
  std::printf("batched GEMM 8 x %d x %d x %d\n", half, half, half);
  benchGemm16<__half>(h, CUDA_R_16F,
                      {{"gemm_batched_f16_sm90a", [](void* a, void* b, void* c, int batch, int m, int k, int n) {
                          croq_gemm_batched_f16_sm90a(a, b, c, batch, m, k, n, nullptr);
                        }}},
                      8, half, half, half, rng);
}

// ---------------------------------------------------------------------------
// Row-wise baselines: one block of 256 threads per row, warp shuffles.
// ---------------------------------------------------------------------------

enum class Op { Sum, Max };

template <Op op>
__device__ float combine(float a, float b) {
  return op == Op::Sum ? a + b : fmaxf(a, b);
}

// The op of v over the block (256 threads); every thread gets the result.
template <Op op>
__device__ float blockReduce(float v) {
  __shared__ float warp_part[8];
  __shared__ float result;
  for (int o = 16; o > 0; o /= 2) v = combine<op>(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (threadIdx.x % 32 == 0) warp_part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? warp_part[threadIdx.x] : (op == Op::Sum ? 0.0f : -INFINITY);
    for (int o = 4; o > 0; o /= 2) v = combine<op>(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (threadIdx.x == 0) result = v;
  }
  __syncthreads();
  v = result;
  __syncthreads();
  return v;
}

template <Op op, typename T>
__global__ void baseRowReduce(const T* x, float* out, int cols) {
  const T* row = x + std::size_t(blockIdx.x) * cols;
  float v = op == Op::Sum ? 0.0f : -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) v = combine<op>(v, float(row[j]));
  v = blockReduce<op>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <typename T>
__global__ void baseSoftmax(const T* x, T* y, int cols) {
  const T* row = x + std::size_t(blockIdx.x) * cols;
  T* out = y + std::size_t(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, float(row[j]));
  m = blockReduce<Op::Max>(m);
  float s = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += __expf(float(row[j]) - m);
  const float inv = 1.0f / blockReduce<Op::Sum>(s);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) out[j] = T(__expf(float(row[j]) - m) * inv);
}

// Times `run` and `base` writing `out_n` elements of Out, checks run's output
// against base's, prints both rows and the verdict.
template <typename Out>
void rowwiseCase(const char* name, const std::string& size, std::size_t out_n, double bytes, Out* out,
                 const std::function<void()>& base, const std::function<void()>& run, double abs_tol,
                 double rel_tol) {
  base();
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> ref = hostFloats(out, out_n);
  const double base_ms = medianMs(base);
  CROQ_CUDA_CHECK(cudaMemset(out, 0xFF, out_n * sizeof(Out)));
  run();
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> got = hostFloats(out, out_n);
  std::vector<std::size_t> all(out_n);
  for (std::size_t i = 0; i < out_n; ++i) all[i] = i;
  const bool ok = sameOnSample(got, ref, all, abs_tol, rel_tol);
  printRow((std::string(name) + " (baseline)").c_str(), "GB/s", base_ms, bytes, 0);
  printRow(name, "GB/s", medianMs(run), bytes, base_ms);
  verdict(ok, std::string(name) + " " + size);
}

template <typename T>
void benchRowwise(int rows, int cols, std::mt19937_64& rng) {
  const std::size_t n = std::size_t(rows) * cols;
  const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
  T* x = randomDevice<T>(n, -8, 8, rng);
  T* y = nullptr;
  float* out = nullptr;
  CROQ_CUDA_CHECK(cudaMalloc(&y, n * sizeof(T)));
  CROQ_CUDA_CHECK(cudaMalloc(&out, rows * sizeof(float)));
  const double reduce_bytes = double(n) * sizeof(T) + rows * sizeof(float), softmax_bytes = 2.0 * n * sizeof(T);
  const bool f32 = std::is_same_v<T, float>;
  rowwiseCase<float>(
      f32 ? "row_sum_f32" : "row_sum_f16", size, rows, reduce_bytes, out,
      [&] { baseRowReduce<Op::Sum, T><<<rows, 256>>>(x, out, cols); },
      [&] { f32 ? croq_row_sum_f32(x, out, rows, cols, nullptr) : croq_row_sum_f16(x, out, rows, cols, nullptr); },
      1e-3, 1e-4);
  if (f32)
    rowwiseCase<float>(
        "row_max_f32", size, rows, reduce_bytes, out, [&] { baseRowReduce<Op::Max, T><<<rows, 256>>>(x, out, cols); },
        [&] { croq_row_max_f32(x, out, rows, cols, nullptr); }, 0, 0);
  rowwiseCase<T>(
      f32 ? "softmax_f32" : "softmax_f16", size, n, softmax_bytes, y, [&] { baseSoftmax<T><<<rows, 256>>>(x, y, cols); },
      [&] { f32 ? croq_softmax_f32(x, y, rows, cols, nullptr) : croq_softmax_f16(x, y, rows, cols, nullptr); },
      f32 ? 1e-6 : 1e-4, f32 ? 1e-3 : 4e-3);
  CROQ_CUDA_CHECK(cudaFree(x));
  CROQ_CUDA_CHECK(cudaFree(y));
  CROQ_CUDA_CHECK(cudaFree(out));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {4096, 4095};
  std::mt19937_64 rng(20261201);
  cudaDeviceProp prop;
  CROQ_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s (sm_%d%d); median of %d runs after %d warm-ups\n", prop.name, prop.major, prop.minor, kRuns,
              kWarmup);
  cublasHandle_t h;
  CHECK_CUBLAS(cublasCreate(&h));
  for (int s : sizes) benchGemms(h, s, rng);
  CHECK_CUBLAS(cublasDestroy(h));
  for (auto [r, c] : {std::pair{8192, 8192}, std::pair{4095, 4095}}) {
    std::printf("row-wise %d x %d\n", r, c);
    benchRowwise<float>(r, c, rng);
    benchRowwise<__half>(r, c, rng);
  }
  std::printf("%s: %d failed\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures != 0;
}
