// bench/gemm_bench.h: the host helpers the GEMM benchmarks share (included
// by bench/gemm_sm86.co, gemm_sm90.co and gemm_fp8_sm90.co).
//   timed_runs()                 CROQ_BENCH_RUNS, or 25: the timed rounds
//   median(times)                the median of a list of milliseconds
//   tflops(M, N, K, ms)          2 M N K / time
//   sample_positions(M, N)       the first and last rows, the last column and
//                                4096 random elements of an M x N C
//   compare(got, ref, pos, ...)  the largest errors and the count out of tolerance
//   download(buf)                a device buffer's contents on the host
#pragma once

#include "croq/croq.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

namespace gemm_bench {

inline int timed_runs() {
  const char* runs = std::getenv("CROQ_BENCH_RUNS");
  const int n = runs != nullptr ? std::atoi(runs) : 0;
  return n > 0 ? n : 25;
}

inline float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

inline double tflops(int M, int N, int K, float ms) {
  return 2.0 * M * N * static_cast<double>(K) / (static_cast<double>(ms) * 1e-3) / 1e12;
}

constexpr int kRandomSamples = 4096;

// Sample positions of C: first row, last row, last column, random elements.
inline std::vector<std::size_t> sample_positions(int M, int N) {
  std::vector<std::size_t> pos;
  for (int n = 0; n < N; ++n) pos.push_back(static_cast<std::size_t>(n));
  for (int n = 0; n < N; ++n) pos.push_back(static_cast<std::size_t>(M - 1) * N + n);
  for (int m = 0; m < M; ++m) pos.push_back(static_cast<std::size_t>(m) * N + (N - 1));
  std::mt19937_64 gen(croq::random_seed());
  std::uniform_int_distribution<std::size_t> dist(0, static_cast<std::size_t>(M) * N - 1);
  for (int i = 0; i < kRandomSamples; ++i) pos.push_back(dist(gen));
  return pos;
}

struct ErrorStats {
  double max_abs = 0.0;
  double max_rel = 0.0;
  int bad = 0;
};

// `got` against `ref` at `pos`: out of tolerance where |got - ref| >
// abs_tol + rel_tol |ref| (NaN counts as out); the relative error is
// |got - ref| / max(|ref|, 1).
inline ErrorStats compare(const std::vector<croq::f16>& got, const std::vector<croq::f16>& ref,
                          const std::vector<std::size_t>& pos, double abs_tol, double rel_tol) {
  ErrorStats s;
  for (std::size_t p : pos) {
    const double g = croq::to_f32(got[p]);
    const double r = croq::to_f32(ref[p]);
    const double err = std::fabs(g - r);
    const double rel = err / std::max(std::fabs(r), 1.0);
    if (!(err <= abs_tol + rel_tol * std::fabs(r))) ++s.bad;
    if (!(err <= s.max_abs)) s.max_abs = err;
    if (!(rel <= s.max_rel)) s.max_rel = rel;
  }
  return s;
}

inline std::vector<croq::f16> download(const croq::device_buffer<croq::f16>& buf) {
  std::vector<croq::f16> host(buf.count());
  buf.copy_to_host(host.data(), host.size());
  return host;
}

}  // namespace gemm_bench
