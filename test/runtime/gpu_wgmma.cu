// gpu_wgmma.cu: one warpgroup runs wgmma.mma_async m64nNk16 through the
// runtime (descriptors, fences, mma_ss / mma_rs, stmatrix) and is compared
// with a double-precision CPU reference. Needs an sm_90a GPU (H100/H200).
//
// D[64][N] = A[64][64] * B[64][N] (+ C) with K = 64, i.e. four k16 wgmmas
// whose descriptors advance inside the tiles. Tiles live in shared memory with
// the 128-byte swizzle (written here with croq::swizzle_offset, so the
// swizzle formula is tested too):
//   K-major A [64 rows of M][64 k] and B [N rows][64 k]: every row is one
//     128-byte swizzle row; SBO = 1024; the k-th slice starts 32*k bytes in.
//   MN-major (transposed) A [64 k][64 m] / B [64 k][N]: blocks of 64 M/N
//     elements, each [64 k][128 bytes]; SBO = 1024 (8 k rows), LBO = the
//     distance between 64-element blocks; the k-th slice starts 2048*k in.
//   RS mode: A comes from registers in the documented fragment layout,
//     loaded by hand with wgmma::a_row / a_col from global memory, or with
//     the loads the compiler emits: wgmma::load_a (elements, from global
//     memory, optionally with only the first 50 rows and 60 columns valid
//     and the rest zero) and wgmma::load_a_ldsm (ldmatrix from a shared tile
//     with 144-byte rows, stored [M][K] or, with .trans, [K][M]).
// Cases with C start the accumulator from random C (scale_d = 1); the others
// start from NaN and rely on scale_d = 0 in the first wgmma to ignore it.
// Accumulators are stored with wgmma::acc_row / acc_col, or (f16) with
// stmatrix. Inputs random in [-1, 1] without zeros, output poisoned with NaN.
// Tolerance: |got - ref| <= 2e-3 + 2e-3*|ref| (f32 accumulators),
// 0.08 + 1e-2*|ref| (f16 accumulators).
//
// Prints one PASS/FAIL line per case with the max error; exits 1 on failure.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "croq/croq.h"

namespace {

constexpr int kM = 64;
constexpr int kK = 64;

// How an RS-mode kernel fills the A registers.
enum a_load : int {
  a_by_hand,        // wgmma::a_row / a_col, element by element
  a_elements,       // wgmma::load_a from global memory
  a_elements_part,  // wgmma::load_a with kValidM rows and kValidK columns valid
  a_ldsm,           // wgmma::load_a_ldsm<false> from shared [M][K + 8]
  a_ldsm_trans,     // wgmma::load_a_ldsm<true> from shared [K][M + 8]
};
constexpr int kValidM = 50;
constexpr int kValidK = 60;
constexpr int kPadded = kK + 8;  // 144-byte rows: ldmatrix rows in distinct banks

struct config {
  bool rs = false;        // A from registers
  bool trans_a = false;   // A stored MN-major (SS only)
  bool trans_b = false;   // B stored MN-major
  bool use_c = false;     // accumulate onto C
  bool stmatrix = false;  // store an f16 accumulator with stmatrix
};

// Byte offset of logical element (row, k) of a K-major tile, or of (k, mn) of
// an MN-major tile, before swizzling. Both layouts use 128-byte rows.
__host__ __device__ constexpr std::uint32_t k_major_offset(int row, int k) {
  return static_cast<std::uint32_t>(row * 128 + k * 2);
}
__host__ __device__ constexpr std::uint32_t mn_major_offset(int k, int mn) {
  return static_cast<std::uint32_t>((mn / 64) * (kK * 128) + k * 128 + (mn % 64) * 2);
}

// Writes the [rows][kK] global operand (row-major, rows = M or N) into a
// swizzled shared tile, K-major or MN-major.
template <typename InT>
__device__ void stage_operand(std::uint8_t* tile, const InT* src, int rows, bool mn_major) {
  for (int idx = static_cast<int>(threadIdx.x); idx < rows * kK; idx += blockDim.x) {
    const int row = idx / kK;
    const int k = idx % kK;
    const std::uint32_t logical = mn_major ? mn_major_offset(k, row) : k_major_offset(row, k);
    *reinterpret_cast<InT*>(tile + croq::swizzle_offset(croq::swizzle_mode::b128, logical)) = src[idx];
  }
}

// Descriptor of the k16 slice `kk` of a staged tile.
__device__ std::uint64_t slice_desc(const std::uint8_t* tile, int kk, bool mn_major) {
  if (mn_major)
    return croq::wgmma::make_desc(croq::cvta_shared(tile) + static_cast<std::uint32_t>(kk) * 2048u, kK * 128,
                                  1024, croq::swizzle_mode::b128);
  return croq::wgmma::advance_desc(croq::wgmma::make_desc_k_major(tile, croq::swizzle_mode::b128),
                                   static_cast<std::uint32_t>(kk) * 32u);
}

template <int N, typename AccT, typename InT, bool kRS, bool kTransA, bool kTransB, bool kStmatrix,
          int kALoad = a_by_hand>
__global__ void __launch_bounds__(128, 1)
    wgmma_kernel(const InT* a, const InT* b, const float* c, float* d, int use_c, int* alignment_error) {
  __shared__ alignas(1024) std::uint8_t s_a[kM * kK * 2];
  __shared__ alignas(1024) std::uint8_t s_b[N * kK * 2];
  __shared__ alignas(128) croq::f16 s_d[kStmatrix ? kM * N : 8];
  __shared__ alignas(128) InT s_a_rows[kALoad == a_ldsm || kALoad == a_ldsm_trans ? kM * kPadded : 8];
  const int tid = static_cast<int>(threadIdx.x);

  if (tid == 0 && ((croq::cvta_shared(s_a) | croq::cvta_shared(s_b)) % 1024u) != 0) *alignment_error = 1;
  if (!kRS) stage_operand(s_a, a, kM, kTransA);
  stage_operand(s_b, b, N, kTransB);
  if (kALoad == a_ldsm || kALoad == a_ldsm_trans) {
    for (int idx = tid; idx < kM * kK; idx += blockDim.x) {
      const int m = idx / kK, k = idx % kK;
      s_a_rows[kALoad == a_ldsm ? m * kPadded + k : k * kPadded + m] = a[idx];
    }
  }
  croq::fence_proxy_async_shared();  // generic-proxy writes -> wgmma (async proxy) reads
  __syncthreads();

  // RS: all four k16 slices of A in registers before the wgmma fence.
  croq::mma::frag_a a_frag[1][4];
  if constexpr (kRS) {
    for (int kk = 0; kk < 4; ++kk) {
      if constexpr (kALoad == a_elements) {
        croq::wgmma::load_a(a_frag[0][kk], a + kk * 16, kK, 1, kM, 16);
      } else if constexpr (kALoad == a_elements_part) {
        croq::wgmma::load_a(a_frag[0][kk], a + kk * 16, kK, 1, kValidM, kValidK - 16 * kk);
      } else if constexpr (kALoad == a_ldsm) {
        croq::wgmma::load_a_ldsm<false>(a_frag[0][kk], s_a_rows + kk * 16, kPadded);
      } else if constexpr (kALoad == a_ldsm_trans) {
        croq::wgmma::load_a_ldsm<true>(a_frag[0][kk], s_a_rows + kk * 16 * kPadded, kPadded);
      } else {
        for (int r = 0; r < 4; ++r) {
          std::uint32_t packed = 0;
          for (int h = 0; h < 2; ++h) {  // element 2r in the low half, 2r + 1 in the high half
            const int e = 2 * r + h;
            const InT x = a[croq::wgmma::a_row(tid, e) * kK + kk * 16 + croq::wgmma::a_col(tid, e)];
            std::uint16_t bits;
            memcpy(&bits, &x, sizeof bits);
            packed |= static_cast<std::uint32_t>(bits) << (16 * h);
          }
          a_frag[0][kk].r[r] = packed;
        }
      }
    }
    croq::wgmma::fence_operands(a_frag);
  }

  using acc_info = croq::wgmma::accumulator<N, AccT>;
  typename acc_info::type acc;
  for (int r = 0; r < acc_info::registers; ++r) {
    if constexpr (std::is_same_v<AccT, float>) {
      acc[r] =
          use_c ? c[croq::wgmma::acc_row(tid, r) * N + croq::wgmma::acc_col(tid, r)] : __int_as_float(-1);
    } else {
      if (use_c) {
        const __half2 pair = __floats2half2_rn(
            c[croq::wgmma::acc_row(tid, 2 * r) * N + croq::wgmma::acc_col(tid, 2 * r)],
            c[croq::wgmma::acc_row(tid, 2 * r + 1) * N + croq::wgmma::acc_col(tid, 2 * r + 1)]);
        acc[r] = *reinterpret_cast<const std::uint32_t*>(&pair);
      } else {
        acc[r] = 0xFFFFFFFFu;  // two f16 NaNs
      }
    }
  }

  croq::wgmma::fence_operands(acc);
  croq::wgmma::fence();
  for (int kk = 0; kk < 4; ++kk) {
    const int scale_d = (use_c || kk > 0) ? 1 : 0;
    const std::uint64_t desc_b = slice_desc(s_b, kk, kTransB);
    if constexpr (kRS)
      croq::wgmma::mma_rs<N, AccT, InT, kTransB ? 1 : 0>(acc, a_frag[0][kk].r, desc_b, scale_d);
    else
      croq::wgmma::mma_ss<N, AccT, InT, kTransA ? 1 : 0, kTransB ? 1 : 0>(acc, slice_desc(s_a, kk, kTransA),
                                                                          desc_b, scale_d);
  }
  croq::wgmma::commit_group();
  croq::wgmma::wait_group<0>();
  croq::wgmma::fence_operands(acc);
  if constexpr (kRS) croq::wgmma::fence_operands(a_frag);

  if constexpr (kStmatrix) {
    // Pairs of 8-column blocks with stmatrix.x4: matrices (rows 0-7, block j),
    // (rows 8-15, block j), (rows 0-7, block j+1), (rows 8-15, block j+1) of
    // this warp's 16-row slab; lane l addresses row l % 8 of matrix l / 8.
    static_assert(std::is_same_v<AccT, croq::f16> && (N / 8) % 2 == 0, "stmatrix path: f16, N/16 whole");
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int q = lane / 8;
    for (int j = 0; j < N / 8; j += 2) {
      const int row = 16 * warp + lane % 8 + 8 * (q % 2);
      const int col = 8 * (j + q / 2);
      croq::stmatrix_x4(croq::cvta_shared(&s_d[row * N + col]), acc[2 * j], acc[2 * j + 1], acc[2 * j + 2],
                        acc[2 * j + 3]);
    }
    __syncthreads();
    for (int idx = tid; idx < kM * N; idx += blockDim.x) d[idx] = __half2float(s_d[idx]);
  } else {
    for (int i = 0; i < N / 2; ++i) {
      float value;
      if constexpr (std::is_same_v<AccT, float>) {
        value = acc[i];
      } else {
        const __half2 pair = *reinterpret_cast<const __half2*>(&acc[i / 2]);
        value = __half2float(i % 2 == 0 ? pair.x : pair.y);
      }
      d[croq::wgmma::acc_row(tid, i) * N + croq::wgmma::acc_col(tid, i)] = value;
    }
  }
}

template <typename T>
void fill_nonzero(croq::spanned_data<T, 2>& x) {
  x.fill_random(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.element_count(); ++i)
    if (croq::to_f32(x.data()[i]) == 0.0f) x.data()[i] = croq::utils::from_f32<T>(0.5f);
}

template <int N, typename AccT, typename InT, bool kRS, bool kTransA, bool kTransB, bool kStmatrix,
          int kALoad = a_by_hand>
bool run_case(const char* name, bool use_c) {
  // Host copies: A [64][K], B [N][K] (row = output column), C [64][N].
  auto a = croq::make_spandata<InT>(kM, kK);
  auto b = croq::make_spandata<InT>(N, kK);
  auto c = croq::make_spandata<float>(kM, N);
  fill_nonzero(a);
  fill_nonzero(b);
  c.fill_random(-1.0f, 1.0f);
  for (std::size_t i = 0; i < c.element_count(); ++i)
    c.data()[i] = croq::to_f32(croq::utils::from_f32<AccT>(c.data()[i]));

  croq::device_buffer<InT> d_a(a.element_count()), d_b(b.element_count());
  croq::device_buffer<float> d_c(c.element_count()), d_d(kM * N);
  croq::device_buffer<int> d_err(1);
  d_a.copy_from_host(a.data(), a.element_count());
  d_b.copy_from_host(b.data(), b.element_count());
  d_c.copy_from_host(c.data(), c.element_count());
  d_d.poison();
  CROQ_CUDA_CHECK(cudaMemset(d_err.get(), 0, sizeof(int)));

  wgmma_kernel<N, AccT, InT, kRS, kTransA, kTransB, kStmatrix, kALoad>
      <<<1, 128>>>(d_a.get(), d_b.get(), d_c.get(), d_d.get(), use_c ? 1 : 0, d_err.get());
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  auto d = croq::make_spandata<float>(kM, N);
  d_d.copy_to_host(d.data(), d.element_count());
  int alignment_error = 0;
  d_err.copy_to_host(&alignment_error, 1);

  const bool f16_acc = std::is_same_v<AccT, croq::f16>;
  const double abs_tol = f16_acc ? 0.08 : 2e-3;
  const double rel_tol = f16_acc ? 1e-2 : 2e-3;
  double max_err = 0.0;
  int bad = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < N; ++j) {
      double ref = use_c ? static_cast<double>(c[i][j]) : 0.0;
      for (int k = 0; k < kK; ++k) {
        if (kALoad == a_elements_part && (i >= kValidM || k >= kValidK)) continue;  // read as zero
        ref += static_cast<double>(croq::to_f32(a[i][k])) * static_cast<double>(croq::to_f32(b[j][k]));
      }
      const double err = std::fabs(static_cast<double>(d[i][j]) - ref);
      if (!(err <= abs_tol + rel_tol * std::fabs(ref))) {
        if (bad < 5) std::printf("  %s: D[%d][%d] = %g, expected %g\n", name, i, j, d[i][j], ref);
        ++bad;
      }
      if (!(err <= max_err)) max_err = err;
    }
  }
  if (alignment_error != 0) std::printf("  %s: shared tiles are not 1024-byte aligned\n", name);
  const bool ok = bad == 0 && alignment_error == 0;
  std::printf("%s %-48s max_err=%.3g (tol %.3g + %.3g*|ref|)\n", ok ? "PASS" : "FAIL", name, max_err, abs_tol,
              rel_tol);
  return ok;
}

}  // namespace

int main() {
  using croq::bf16;
  using croq::f16;
  bool ok = true;
  // <N, AccT, InT, RS, TransA, TransB, stmatrix>
  ok &= run_case<64, float, f16, false, false, false, false>("SS m64n64k16 f16->f32 +C", true);
  ok &= run_case<128, float, f16, false, false, false, false>("SS m64n128k16 f16->f32 scale_d=0", false);
  ok &= run_case<64, float, bf16, false, false, false, false>("SS m64n64k16 bf16->f32 scale_d=0", false);
  ok &= run_case<128, float, bf16, false, false, false, false>("SS m64n128k16 bf16->f32 +C", true);
  ok &= run_case<64, f16, f16, false, false, false, false>("SS m64n64k16 f16->f16 +C", true);
  ok &= run_case<128, f16, f16, false, false, false, true>("SS m64n128k16 f16->f16 stmatrix", false);
  ok &= run_case<8, float, f16, false, false, false, false>("SS m64n8k16 f16->f32 +C", true);
  ok &= run_case<200, float, f16, false, false, false, false>("SS m64n200k16 f16->f32 +C", true);
  ok &= run_case<256, float, bf16, false, false, false, false>("SS m64n256k16 bf16->f32 scale_d=0", false);
  ok &= run_case<64, float, f16, true, false, false, false>("RS m64n64k16 f16->f32 +C", true);
  ok &= run_case<128, float, bf16, true, false, false, false>("RS m64n128k16 bf16->f32 scale_d=0", false);
  ok &= run_case<64, f16, f16, true, false, false, true>("RS m64n64k16 f16->f16 stmatrix +C", true);
  ok &= run_case<64, float, f16, false, true, true, false>("SS m64n64k16 f16->f32 A,B MN-major", true);
  ok &= run_case<128, float, bf16, false, false, true, false>("SS m64n128k16 bf16->f32 B MN-major", false);
  ok &= run_case<128, float, f16, true, false, true, false>("RS m64n128k16 f16->f32 B MN-major", true);
  // <N, AccT, InT, RS, TransA, TransB, stmatrix, A load>
  ok &= run_case<128, float, f16, true, false, false, false, a_elements>("RS load_a m64n128k16 f16->f32", false);
  ok &= run_case<64, float, bf16, true, false, false, false, a_elements_part>("RS load_a 50x60 valid bf16->f32", true);
  ok &= run_case<128, float, f16, true, false, false, false, a_ldsm>("RS load_a_ldsm m64n128k16 f16->f32", false);
  ok &= run_case<64, f16, f16, true, false, false, false, a_ldsm>("RS load_a_ldsm m64n64k16 f16->f16 +C", true);
  ok &= run_case<128, float, bf16, true, false, false, false, a_ldsm_trans>("RS load_a_ldsm.trans bf16->f32", false);
  if (!ok) {
    std::printf("FAIL gpu_wgmma (CROQ_SEED=%llu reproduces the inputs)\n",
                static_cast<unsigned long long>(croq::random_seed()));
    return 1;
  }
  std::printf("PASS gpu_wgmma\n");
  return 0;
}
