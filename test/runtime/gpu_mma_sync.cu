// gpu_mma_sync.cu: one warp runs cp.async -> ldmatrix -> mma.sync m16n8k16
// through the runtime wrappers and is compared with a double-precision CPU
// reference. Needs a GPU of sm_80 or newer.
//
// D[16][8] = A[16][K] * B[K][8] + C[16][8] with K = 64 (four k16 steps):
//   - A is row-major [16][K] in global memory, staged by cp_async_cg_16 and
//     read by ldmatrix_x4.
//   - B is stored either [K][8] (row-major K x N, read by ldmatrix_x2_trans)
//     or [8][K] (K contiguous, read by ldmatrix_x2).
//   - C is loaded into the accumulator and D stored from it element by
//     element with the documented fragment coordinates (mma::c_row / c_col),
//     so a wrong layout formula shows up as a mismatch.
//   - In the "tail" cases A holds only 13 valid rows and 60 valid columns; the
//     rest of the A buffer is NaN and the copy must zero-fill it through the
//     src-size operand of cp.async (a NaN that leaks in fails the test).
// Inputs are random in [-1, 1] with zeros replaced, outputs are poisoned
// (NaN) before the launch. Tolerance: |got - ref| <= 2e-3 + 2e-3 * |ref| for
// f32 accumulators, 0.08 + 1e-2 * |ref| for f16 accumulators (the running
// sum is rounded to f16 after every k16 step; |ref| stays below ~12 here).
//
// Prints one PASS/FAIL line per case with the max error; exits 1 on failure.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "croq/croq.h"

namespace {

constexpr int kM = 16;
constexpr int kN = 8;
constexpr int kK = 64;

// Loads the 16 x kK A tile with cp.async, zero-filling rows >= valid_rows and
// columns >= valid_cols (valid_cols is a multiple of 4 here, so each 16-byte
// chunk is either full, partial by whole f16 pairs, or empty).
template <typename InT>
__device__ void load_a_tile(InT (*s_a)[kK], const InT* a, int valid_rows, int valid_cols) {
  constexpr int chunks_per_row = kK / 8;  // 8 b16 elements per 16-byte chunk
  for (int chunk = static_cast<int>(threadIdx.x); chunk < kM * chunks_per_row; chunk += 32) {
    const int row = chunk / chunks_per_row;
    const int col = (chunk % chunks_per_row) * 8;
    int valid = 0;
    if (row < valid_rows) valid = valid_cols - col < 0 ? 0 : (valid_cols - col > 8 ? 8 : valid_cols - col);
    const InT* src = valid > 0 ? a + row * kK + col : a;  // an in-bounds address even when nothing is read
    croq::cp_async_cg_16(croq::cvta_shared(&s_a[row][col]), src, static_cast<std::uint32_t>(valid * 2));
  }
}

template <typename InT, typename AccT, bool kBStoredKN>
__global__ void mma_sync_kernel(const InT* a, const InT* b, const float* c, float* d, int valid_rows,
                                int valid_cols) {
  __shared__ alignas(128) InT s_a[kM][kK];
  __shared__ alignas(128) InT s_b[kBStoredKN ? kK : kN][kBStoredKN ? kN : kK];
  const int lane = static_cast<int>(threadIdx.x);

  load_a_tile(s_a, a, valid_rows, valid_cols);
  constexpr int b_chunks = kK * kN / 8;
  for (int chunk = lane; chunk < b_chunks; chunk += 32)
    croq::cp_async_cg_16(croq::cvta_shared(reinterpret_cast<InT*>(s_b) + chunk * 8), b + chunk * 8);
  croq::cp_async_commit();
  croq::cp_async_wait<0>();
  __syncthreads();

  croq::mma::frag_c<AccT> acc{};
  for (int e = 0; e < 4; ++e) {
    const float value = c[croq::mma::c_row(lane, e) * kN + croq::mma::c_col(lane, e)];
    if constexpr (std::is_same_v<AccT, float>) {
      acc.r[e] = value;
    } else {
      __half2 pair = *reinterpret_cast<__half2*>(&acc.r[e / 2]);
      if (e % 2 == 0)
        pair.x = __float2half_rn(value);
      else
        pair.y = __float2half_rn(value);
      acc.r[e / 2] = *reinterpret_cast<std::uint32_t*>(&pair);
    }
  }

  for (int k0 = 0; k0 < kK; k0 += 16) {
    croq::mma::frag_a fa;
    croq::mma::frag_b fb;
    croq::ldmatrix_x4(fa.r, croq::cvta_shared(&s_a[lane % 16][k0 + (lane / 16) * 8]));
    if constexpr (kBStoredKN)
      croq::ldmatrix_x2_trans(fb.r, croq::cvta_shared(&s_b[k0 + lane % 16][0]));
    else
      croq::ldmatrix_x2(fb.r, croq::cvta_shared(&s_b[lane % 8][k0 + ((lane / 8) % 2) * 8]));
    croq::mma::mma<InT>(acc, fa, fb);
  }

  for (int e = 0; e < 4; ++e) {
    float value;
    if constexpr (std::is_same_v<AccT, float>) {
      value = acc.r[e];
    } else {
      const __half2 pair = *reinterpret_cast<const __half2*>(&acc.r[e / 2]);
      value = __half2float(e % 2 == 0 ? pair.x : pair.y);
    }
    d[croq::mma::c_row(lane, e) * kN + croq::mma::c_col(lane, e)] = value;
  }
}

template <typename T>
void fill_nonzero(croq::spanned_data<T, 2>& x) {
  x.fill_random(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.element_count(); ++i)
    if (croq::to_f32(x.data()[i]) == 0.0f) x.data()[i] = croq::utils::from_f32<T>(0.5f);
}

template <typename InT, typename AccT, bool kBStoredKN>
bool run_case(const char* name, bool tail) {
  const int valid_rows = tail ? 13 : kM;
  const int valid_cols = tail ? 60 : kK;

  auto a = croq::make_spandata<InT>(kM, kK);
  auto b = kBStoredKN ? croq::make_spandata<InT>(kK, kN) : croq::make_spandata<InT>(kN, kK);
  auto c = croq::make_spandata<float>(kM, kN);
  fill_nonzero(a);
  fill_nonzero(b);
  c.fill_random(-1.0f, 1.0f);
  // The accumulator starts from C in the accumulator precision.
  for (std::size_t i = 0; i < c.element_count(); ++i)
    c.data()[i] = croq::to_f32(croq::utils::from_f32<AccT>(c.data()[i]));
  // Elements outside the valid region are NaN: only zero-fill keeps them out.
  for (int i = 0; i < kM; ++i)
    for (int k = 0; k < kK; ++k)
      if (i >= valid_rows || k >= valid_cols) a[i][k] = croq::utils::from_f32<InT>(std::nanf(""));

  croq::device_buffer<InT> d_a(a.element_count()), d_b(b.element_count());
  croq::device_buffer<float> d_c(c.element_count()), d_d(kM * kN);
  d_a.copy_from_host(a.data(), a.element_count());
  d_b.copy_from_host(b.data(), b.element_count());
  d_c.copy_from_host(c.data(), c.element_count());
  d_d.poison();

  mma_sync_kernel<InT, AccT, kBStoredKN>
      <<<1, 32>>>(d_a.get(), d_b.get(), d_c.get(), d_d.get(), valid_rows, valid_cols);
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  auto d = croq::make_spandata<float>(kM, kN);
  d_d.copy_to_host(d.data(), d.element_count());

  const bool f16_acc = std::is_same_v<AccT, croq::f16>;
  const double abs_tol = f16_acc ? 0.08 : 2e-3;
  const double rel_tol = f16_acc ? 1e-2 : 2e-3;
  double max_err = 0.0;
  int bad = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      double ref = c[i][j];
      for (int k = 0; k < kK; ++k) {
        if (i >= valid_rows || k >= valid_cols) continue;
        const double bv = kBStoredKN ? croq::to_f32(b[k][j]) : croq::to_f32(b[j][k]);
        ref += static_cast<double>(croq::to_f32(a[i][k])) * bv;
      }
      const double err = std::fabs(static_cast<double>(d[i][j]) - ref);
      if (!(err <= abs_tol + rel_tol * std::fabs(ref))) {
        if (bad < 5) std::printf("  %s: D[%d][%d] = %g, expected %g\n", name, i, j, d[i][j], ref);
        ++bad;
      }
      if (!(err <= max_err)) max_err = err;  // NaN-propagating max
    }
  }
  std::printf("%s %-40s max_err=%.3g (tol %.3g + %.3g*|ref|)\n", bad == 0 ? "PASS" : "FAIL", name, max_err,
              abs_tol, rel_tol);
  return bad == 0;
}

}  // namespace

int main() {
  bool ok = true;
  ok &= run_case<croq::f16, float, true>("f16 -> f32, B [K][N] (ldmatrix.trans)", false);
  ok &= run_case<croq::f16, float, false>("f16 -> f32, B [N][K] (ldmatrix)", false);
  ok &= run_case<croq::f16, croq::f16, true>("f16 -> f16, B [K][N]", false);
  ok &= run_case<croq::f16, croq::f16, false>("f16 -> f16, B [N][K]", false);
  ok &= run_case<croq::bf16, float, true>("bf16 -> f32, B [K][N]", false);
  ok &= run_case<croq::bf16, float, false>("bf16 -> f32, B [N][K]", false);
  ok &= run_case<croq::f16, float, true>("f16 -> f32, cp.async zero-fill tail", true);
  ok &= run_case<croq::bf16, float, false>("bf16 -> f32, cp.async zero-fill tail", true);
  if (!ok) {
    std::printf("FAIL gpu_mma_sync (CROQ_SEED=%llu reproduces the inputs)\n",
                static_cast<unsigned long long>(croq::random_seed()));
    return 1;
  }
  std::printf("PASS gpu_mma_sync\n");
  return 0;
}
