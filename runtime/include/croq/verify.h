// croq/verify.h: checks of a matrix product against a reference computed on
// the host, with Croqtile's names and tolerances (`|got - ref| <= base_tol +
// rel_tol * |ref|`). The reference is accumulated in f64 from the operands
// converted to f32. A check that fails prints the first mismatches (row,
// column, value, reference, tolerance) and how many of the checked elements
// were off, then aborts with file:line of the call.
//
//   verify_matmul_row_row_subset(lhs, rhs, res, base_tol, rel_tol, max_i, max_j)
//       lhs [M, K], rhs [N, K] (both row-major): about max_i x max_j elements on a grid
//   verify_matmul_row_col_subset(...)                 rhs [K, N]
//   verify_matmul_row_row_sampled(lhs, rhs, res, cfg)  cfg.num_samples elements spread over
//   verify_matmul_row_col_sampled(lhs, rhs, res, cfg)  the whole [M, N] result
//   verify_spmm_sampled(dense_lhs, rhs, res, cfg)      sparse GEMM against its dense lhs
//
// The operands are anything with shape() and [i][j] on host memory
// (spanned_data, spanned_view).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

#include "croq/host.h"

namespace croq {

// Croqtile's SampledVerifierConfig.
struct SampledVerifierConfig {
  std::size_t num_samples = 512;
  float base_tol = 1.0f;
  float rel_tol = 0.01f;
  bool verbose = false;
};

namespace detail {

enum class rhs_layout { row_row, row_col };

// Counts mismatches over the elements that `next(i, j)` visits and reports them.
class matmul_checker {
 public:
  matmul_checker(float base_tol, float rel_tol, bool verbose, const char* file, int line)
      : base_tol_(base_tol), rel_tol_(rel_tol), verbose_(verbose), file_(file), line_(line) {}

  template <typename A, typename B, typename C>
  void check(const A& lhs, const B& rhs, const C& res, rhs_layout layout, std::size_t i, std::size_t j) {
    const std::size_t k = lhs.shape()[1];
    double ref = 0.0;
    for (std::size_t kk = 0; kk < k; ++kk) {
      const float b = layout == rhs_layout::row_row ? to_f32(rhs[j][kk]) : to_f32(rhs[kk][j]);
      ref += static_cast<double>(to_f32(lhs[i][kk])) * static_cast<double>(b);
    }
    const double got = static_cast<double>(to_f32(res[i][j]));
    const double tol = static_cast<double>(base_tol_) + static_cast<double>(rel_tol_) * std::fabs(ref);
    ++checked_;
    if (std::fabs(got - ref) <= tol) return;
    if (failed_ < 5 || verbose_)
      std::printf("mismatch at (%zu, %zu): got %g, expected %g (tolerance %g)\n", i, j, got, ref, tol);
    ++failed_;
  }

  void finish(const char* what) const {
    if (failed_ == 0) return;
    std::string msg = std::string(what) + ": " + std::to_string(failed_) + " of " + std::to_string(checked_) +
                      " checked elements differ from the reference";
    fail_at(file_, line_, "verification failed", msg.c_str());
  }

 private:
  float base_tol_;
  float rel_tol_;
  bool verbose_;
  const char* file_;
  int line_;
  std::size_t checked_ = 0;
  std::size_t failed_ = 0;
};

template <typename A, typename B, typename C>
void verify_subset(const A& lhs, const B& rhs, const C& res, rhs_layout layout, float base_tol, float rel_tol,
                   std::size_t max_i, std::size_t max_j, const char* what, const char* file, int line) {
  const std::size_t m = res.shape()[0];
  const std::size_t n = res.shape()[1];
  const std::size_t step_i = max_i > 0 && m / max_i > 1 ? m / max_i : 1;
  const std::size_t step_j = max_j > 0 && n / max_j > 1 ? n / max_j : 1;
  matmul_checker checker(base_tol, rel_tol, false, file, line);
  for (std::size_t i = 0; i < m; i += step_i)
    for (std::size_t j = 0; j < n; j += step_j) checker.check(lhs, rhs, res, layout, i, j);
  checker.finish(what);
}

inline std::size_t gcd(std::size_t a, std::size_t b) {
  while (b != 0) {
    const std::size_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// A stride through the flattened [M, N] result that is coprime with N, so
// that the samples fall on every column as well as every row.
inline std::size_t sample_stride(std::size_t total, std::size_t n, std::size_t samples) {
  const std::size_t raw = samples > 0 && total / samples > 1 ? total / samples : 1;
  for (std::size_t s = raw; s < total; ++s)
    if (gcd(s, n) == 1) return s;
  return raw;
}

template <typename A, typename B, typename C>
void verify_sampled(const A& lhs, const B& rhs, const C& res, rhs_layout layout, const SampledVerifierConfig& cfg,
                    const char* what, const char* file, int line) {
  const std::size_t m = res.shape()[0];
  const std::size_t n = res.shape()[1];
  const std::size_t total = m * n;
  const std::size_t stride = sample_stride(total, n, cfg.num_samples);
  matmul_checker checker(cfg.base_tol, cfg.rel_tol, cfg.verbose, file, line);
  std::size_t count = 0;
  for (std::size_t idx = 0; idx < total && count < cfg.num_samples; idx += stride, ++count)
    checker.check(lhs, rhs, res, layout, idx / n, idx % n);
  checker.finish(what);
}

}  // namespace detail

template <typename A, typename B, typename C>
void verify_matmul_row_row_subset(const A& lhs, const B& rhs, const C& res, float base_tol, float rel_tol,
                                  std::size_t max_i = 8, std::size_t max_j = 8, const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
  detail::verify_subset(lhs, rhs, res, detail::rhs_layout::row_row, base_tol, rel_tol, max_i, max_j,
                        "verify_matmul_row_row_subset", file, line);
}

template <typename A, typename B, typename C>
void verify_matmul_row_col_subset(const A& lhs, const B& rhs, const C& res, float base_tol, float rel_tol,
                                  std::size_t max_i = 8, std::size_t max_j = 8, const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
  detail::verify_subset(lhs, rhs, res, detail::rhs_layout::row_col, base_tol, rel_tol, max_i, max_j,
                        "verify_matmul_row_col_subset", file, line);
}

template <typename A, typename B, typename C>
void verify_matmul_row_row_sampled(const A& lhs, const B& rhs, const C& res, const SampledVerifierConfig& cfg = {},
                                   const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  detail::verify_sampled(lhs, rhs, res, detail::rhs_layout::row_row, cfg, "verify_matmul_row_row_sampled", file,
                         line);
}

template <typename A, typename B, typename C>
void verify_matmul_row_col_sampled(const A& lhs, const B& rhs, const C& res, const SampledVerifierConfig& cfg = {},
                                   const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  detail::verify_sampled(lhs, rhs, res, detail::rhs_layout::row_col, cfg, "verify_matmul_row_col_sampled", file,
                         line);
}

// Sparse GEMM: the dense [M, K] lhs before it was pruned, rhs [N, K].
template <typename A, typename B, typename C>
void verify_spmm_sampled(const A& dense_lhs, const B& rhs, const C& res, const SampledVerifierConfig& cfg = {},
                         const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  detail::verify_sampled(dense_lhs, rhs, res, detail::rhs_layout::row_row, cfg, "verify_spmm_sampled", file, line);
}

}  // namespace croq
