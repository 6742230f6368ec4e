// croq/cpu/wgmma.h: the warpgroup MMA (`: group-4`, WGMMA on sm_90a) for
// `--target=cpu`. The same calls as croq/device/wgmma.h and wgmma_tile.h make,
// computed on the host:
//
//   accumulator_t<N, AccT>, fill, store_acc
//                         the per-thread m64nN accumulator of the GPU (f32
//                         elements, or f16 pairs packed in u32) in the GPU's
//                         layout (acc_row / acc_col, croq/device/wgmma_layout.h)
//   desc_at<W, T>, desc_at_mn<W, T>
//                         a "descriptor" of the K-major (or MN-major: the tile
//                         stored [K][M] or [K][N]) slice at logical (r0, c0)
//                         of a swizzled operand tile: the tile's pointer, its
//                         row count, the origin and the major mode (no
//                         hardware bits)
//   mma_ss<N, AccT, InT>  acc += A[64 x K] * B[N x K]^T (K = 16, or 32 for 8-bit
//                         floats) for the elements this
//                         thread owns: each of the 128 threads of the warpgroup
//                         reads its two rows of A and its N / 4 rows of B from
//                         the swizzled tiles (swz_index, the index the copies
//                         write with) and sums over k in f32 from the old
//                         accumulator value, in k order (products of 16- and
//                         8-bit floats are exact in f32); an f16 accumulator
//                         is rounded to f16 after every instruction's K step,
//                         as on the GPU.
//                         Shared memory is only read, so the threads need not
//                         meet; all 128 threads of the warpgroup must exist.
//   fence, fence_operands, commit_group, wait_group<N>
//                         nothing to order: mma_ss is complete when it returns
//   copy_tile_swz, cp_async_tile_swz
//                         tile copies into the swizzled layout with the GPU's
//                         element split among threads and zero fill; the
//                         asynchronous one completes at once
//   load_sparse_meta, mma_sp_ss
//                         2:4 sparse A: each thread's metadata register as the
//                         GPU's (sparse_meta_word); mma_sp_ss exchanges the
//                         registers within the warp (a warp-collective step)
//                         and expands each thread's two rows of A from the
//                         kept elements before summing like mma_ss
//   load_a_ldsm, load_a, mma_rs
//                         RS mode: A in registers, each warp holding its
//                         16-row slab of a 64 x 16 atom in the m16n8k16 A
//                         layout (croq/cpu/device.h's warp loads); mma_rs
//                         gathers the two rows of A this thread's results need
//                         from the lanes of its warp (a warp-collective step,
//                         as mma.sync's emulation) and sums like mma_ss
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "croq/cpu/device.h"
#include "croq/cpu/launch.h"
#include "croq/device/wgmma_layout.h"
#include "croq/scalar.h"
#include "croq/types.h"

namespace croq {
namespace wgmma {

// ---- accumulators ----------------------------------------------------------



template <int N, typename AccT>
void fill(accumulator_t<N, AccT>& acc, float v) {
  if constexpr (std::is_same_v<AccT, float>) {
    for (int i = 0; i < N / 2; ++i) acc[i] = v;
  } else {
    const std::uint32_t h = mma::pack2(__float2half_rn(v), __float2half_rn(v));
    for (int i = 0; i < N / 4; ++i) acc[i] = h;
  }
}

template <int N, typename AccT>
float acc_value(const accumulator_t<N, AccT>& acc, int i) {
  if constexpr (std::is_same_v<AccT, float>)
    return acc[i];
  else
    return cpu::detail::half_bits_to_float(static_cast<std::uint16_t>(acc[i / 2] >> ((i % 2) * 16)));
}

namespace detail {

// Thread index within its warpgroup.
inline int warpgroup_tid() { return static_cast<int>(cpu::detail::linear_thread_index() % 128u); }

template <int N, typename AccT>
void set_acc(accumulator_t<N, AccT>& acc, int i, float v) {
  if constexpr (std::is_same_v<AccT, float>) {
    acc[i] = v;
  } else {
    std::uint16_t h;
    const f16 r = __float2half_rn(v);
    std::memcpy(&h, &r, 2);
    const int shift = (i % 2) * 16;
    acc[i / 2] = (acc[i / 2] & ~(0xFFFFu << shift)) | (static_cast<std::uint32_t>(h) << shift);
  }
}

}  // namespace detail

// Stores the 64 x N accumulator of this thread's warpgroup: element (r, c)
// to p[r * s0 + c * s1] converted to OutT, only where r < v0 and c < v1.
template <int N, typename AccT, typename OutT>
void store_acc(const accumulator_t<N, AccT>& acc, OutT* p, int s0, int s1, int v0, int v1) {
  const int tid = detail::warpgroup_tid();
  for (int i = 0; i < N / 2; ++i) {
    const int r = acc_row(tid, i), c = acc_col(tid, i);
    if (r < v0 && c < v1) p[r * s0 + c * s1] = cvt<OutT>(acc_value<N, AccT>(acc, i));
  }
}

// Block scaling (`mma.scale`), as croq/device/wgmma_tile.h.
template <typename ScaleT>
row_scales load_row_scales(const ScaleT* sa, int s0, int v0, float sb) {
  return row_scales_of(detail::warpgroup_tid(), sa, s0, v0, sb);
}
template <int N, typename AccT>
void scale_add(accumulator_t<N, AccT>& d, const accumulator_t<N, AccT>& part, const row_scales& s) {
  for (int i = 0; i < N / 2; ++i)
    detail::set_acc<N, AccT>(d, i, acc_value<N, AccT>(d, i) + acc_value<N, AccT>(part, i) * row_scale(s, i));
}

// ---- fences and groups: every mma_ss is complete when it returns -------------

inline void fence() {}
inline void commit_group() {}
template <int N>
void wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
}
template <typename T, int Count>
void fence_operands(T (&)[Count]) {}

// ---- descriptors -------------------------------------------------------------

// The slice at logical (r0, c0) of a swizzled tile of `rows` rows (W-byte
// swizzle) that starts at `base`: K-major (element (mn, k) of the operand at
// tile (r0 + mn, c0 + k)) or MN-major (at tile (r0 + k, c0 + mn)).
template <int W, typename T>
struct smem_desc {
  const T* base;
  int rows;
  int r0, c0;
  bool mn_major;

  float at(int mn, int k) const {
    return static_cast<float>(mn_major ? base[swz_index<W, T>(r0 + k, c0 + mn, rows)]
                                       : base[swz_index<W, T>(r0 + mn, c0 + k, rows)]);
  }
};

template <int W, typename T>
smem_desc<W, T> desc_at(const T* base, int rows, int r0, int c0) {
  return {base, rows, r0, c0, false};
}

template <int W, typename T>
smem_desc<W, T> desc_at_mn(const T* base, int rows, int r0, int c0) {
  return {base, rows, r0, c0, true};
}

// ---- SS mode ------------------------------------------------------------------

namespace detail {

// acc (+)= A * B^T for this thread's elements, given the two rows of A they
// lie on (acc_row(tid, i) for i / 2 % 2 = 0 and 1) and the B slice `b`: the
// thread's N / 4 columns (acc_col(tid, i) for (i / 4, i % 2)) are read from
// B once, each element summed over k in f32 from its old value, in k order.
template <int N, typename AccT, typename InT, int WB, int K>
void accumulate_rows(accumulator_t<N, AccT>& acc, const float (&arow)[2][K], const smem_desc<WB, InT>& b,
                     int scale_d) {
  const int tid = warpgroup_tid();
  float brow[N / 4][K];
  for (int j = 0; j < N / 4; ++j) {
    const int n = acc_col(tid, 4 * (j / 2) + j % 2);
    for (int k = 0; k < K; ++k) brow[j][k] = b.at(n, k);
  }
  for (int i = 0; i < N / 2; ++i) {
    const float* x = arow[(i / 2) % 2];
    const float* y = brow[2 * (i / 4) + i % 2];
    float s = scale_d ? acc_value<N, AccT>(acc, i) : 0.0f;
    for (int k = 0; k < K; ++k) s += x[k] * y[k];
    set_acc<N, AccT>(acc, i, s);
  }
}

}  // namespace detail

namespace detail {

// A descriptor whose major mode is not the one the instruction names reads
// other elements on the GPU: the emulation stops rather than guess.
template <int W, typename T>
void require_major(const smem_desc<W, T>& d, int trans, const char* fn, const char* operand, const char* file,
                   int line) {
  if (d.mn_major == (trans != 0)) return;
  std::fflush(stdout);
  std::fprintf(stderr, "croq cpu runtime: %s (%s:%d) names operand %s %s-major, but its descriptor is %s-major\n", fn,
               file, line, operand, trans ? "MN" : "K", d.mn_major ? "MN" : "K");
  std::_Exit(EXIT_FAILURE);
}

}  // namespace detail

// acc (+)= A * B^T with A the 64 x K slice `a` and B the N x K slice `b`
// (K = k_per_instr_v<InT>: 16, or 32 for 8-bit floats; scale_d = 0: acc =
// A * B^T), for this thread's accumulator elements. TransA / TransB = 1:
// that operand's descriptor is MN-major (16-bit inputs only, as on the GPU).
template <int N, typename AccT, typename InT, int TransA = 0, int TransB = 0, int WA, int WB>
void mma_ss(accumulator_t<N, AccT>& acc, const smem_desc<WA, InT>& a, const smem_desc<WB, InT>& b, int scale_d = 1,
            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(supported_v<N, AccT, InT>,
                "wgmma takes N = 8..256 step 8, f16, e4m3 or e5m2 inputs with f32 or f16 accumulators, or bf16 "
                "inputs with f32 accumulators");
  static_assert(sizeof(InT) == 2 || (TransA == 0 && TransB == 0), "8-bit operands are K-major");
  detail::require_major(a, TransA, "croq::wgmma::mma_ss", "A", file, line);
  detail::require_major(b, TransB, "croq::wgmma::mma_ss", "B", file, line);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned group = cpu::detail::linear_thread_index() / 128u;
  if (threads < 128u * (group + 1u)) {
    std::fflush(stdout);
    const char* kernel = cpu::detail::active_runner ? cpu::detail::active_runner->launch().kernel : "?";
    std::fprintf(stderr,
                 "croq cpu runtime: croq::wgmma::mma_ss (%s:%d) in kernel `%s` needs a full warpgroup of 128 "
                 "threads, but warpgroup %u of the block has only %u\n",
                 file, line, kernel, group, threads - 128u * group);
    std::_Exit(EXIT_FAILURE);
  }
  const int tid = detail::warpgroup_tid();
  // The two rows of A this thread's elements lie on.
  constexpr int K = k_per_instr_v<InT>;
  float arow[2][K];
  for (int h = 0; h < 2; ++h) {
    const int r = acc_row(tid, 2 * h);
    for (int k = 0; k < K; ++k) arow[h][k] = a.at(r, k);
  }
  detail::accumulate_rows<N, AccT, InT, WB, K>(acc, arow, b, scale_d);
}

// ---- sparse SS mode (wgmma.mma_async.sp) --------------------------------------

// This thread's metadata register of the tile at p (croq/device/wgmma_layout.h,
// sparse_meta_word); rows r >= v0 and columns c >= v1 read as zero.
template <typename InT, typename MetaT>
void load_sparse_meta(std::uint32_t& e, const MetaT* p, int s0, int s1, int v0, int v1) {
  e = sparse_meta_word<InT>(p, s0, s1, v0, v1, detail::warpgroup_tid());
}

// The register from words in the prepack_v2 layout (sparse_meta_word_v2).
template <typename InT>
void load_sparse_meta_v2(std::uint32_t& e, const std::uint32_t* base, int offset, int ld, int v0, int v1) {
  e = sparse_meta_word_v2<InT>(base, offset, ld, v0, v1, detail::warpgroup_tid());
}

// acc (+)= A * B^T with A 2:4 sparse: `a` the 64 x K/2 slice of its kept
// elements, `meta` this thread's metadata register, B the N x K slice `b`
// (K = 32, or 64 for 8-bit floats). Every lane of the warp must call it: the
// lanes exchange their metadata registers, each taking the nibbles of its two
// rows from the lanes the hardware reads them from (sparse_meta_lane), and
// expands its rows of A to K elements before summing like mma_ss.
template <int N, typename AccT, typename InT, int TransA = 0, int TransB = 0, int WA, int WB>
void mma_sp_ss(accumulator_t<N, AccT>& acc, const smem_desc<WA, InT>& a, const smem_desc<WB, InT>& b,
               std::uint32_t meta, int scale_d = 1, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(supported_v<N, AccT, InT>,
                "sparse wgmma takes N = 8..256 step 8, f16, e4m3 or e5m2 inputs with f32 or f16 accumulators, or "
                "bf16 inputs with f32 accumulators");
  static_assert(sizeof(InT) == 2 || (TransA == 0 && TransB == 0), "8-bit operands are K-major");
  detail::require_major(a, TransA, "croq::wgmma::mma_sp_ss", "A", file, line);
  detail::require_major(b, TransB, "croq::wgmma::mma_sp_ss", "B", file, line);
  // The nibbles of a lane's rows are in the registers of its quad (lanes
  // 4g .. 4g + 3): each lane receives those four words.
  std::uint32_t quad[4];
  if (!mma::detail::exchange_in_warp("croq::wgmma::mma_sp_ss (wgmma.sp)", file, line, meta, quad,
                                     [](cpu::detail::Warp& warp, unsigned s) {
                                       for (int l = 0; l < 32; ++l)
                                         for (int q = 0; q < 4; ++q)
                                           std::memcpy(warp.out[s][l] + 4 * q, warp.in[s][4 * (l / 4) + q],
                                                       sizeof(std::uint32_t));
                                     }))
    return;
  const int tid = detail::warpgroup_tid();
  constexpr int K = 2 * k_per_instr_v<InT>;
  const int g = (tid % 32) / 4;
  float arow[2][K];
  for (int h = 0; h < 2; ++h) {
    const int row = acc_row(tid, 2 * h);
    for (int q = 0; q < K / 4; ++q) {
      const std::uint32_t word = quad[sparse_meta_lane<InT>(g, h, q) - 4 * g];
      const std::uint32_t nibble = (word >> sparse_meta_shift<InT>(h, q)) & 0xFu;
      for (int e = 0; e < 4; ++e) arow[h][4 * q + e] = 0.0f;
      arow[h][4 * q + (nibble & 3u)] += a.at(row, 2 * q);
      arow[h][4 * q + (nibble >> 2)] += a.at(row, 2 * q + 1);
    }
  }
  detail::accumulate_rows<N, AccT, InT, WB, K>(acc, arow, b, scale_d);
}

// ---- RS mode: A in registers ----------------------------------------------------

inline int warp_in_warpgroup() { return static_cast<int>(cpu::detail::linear_thread_index() / 32u % 4u); }

// A 64 x 16 atom from shared memory (ldmatrix on the GPU); this warp loads
// its 16-row slab. Trans = false: stored [M][K], row m at p + m * ld; Trans =
// true: stored [K][M], row k at p + k * ld.
template <bool Trans, typename T>
void load_a_ldsm(mma::frag_a& a, const T* p, int ld) {
  const int slab = 16 * warp_in_warpgroup();
  mma::load_a_ldsm<Trans>(a, Trans ? p + slab : p + slab * ld, ld);
}

// A 64 x 16 atom element by element: (m, k) at p[m * s0 + k * s1], the first
// v0 rows and v1 columns valid, the rest zero.
template <typename T>
void load_a(mma::frag_a& a, const T* p, int s0, int s1, int v0, int v1) {
  const int slab = 16 * warp_in_warpgroup();
  mma::load_a(a, p + slab * s0, s0, s1, v0 - slab, v1);
}

template <int R, int C>
void fence_operands(mma::frag_a (&)[R][C]) {}

namespace detail {

// The warp's A slab (16 x 16, from every lane's four registers) regrouped
// so that each lane receives the two rows its accumulator elements lie on
// (rows lane / 4 and lane / 4 + 8 of the slab), 16 values of 16 bits each.
inline void gather_a_rows(const unsigned char (*in)[cpu::detail::kLaneBytes],
                          unsigned char (*out)[cpu::detail::kLaneBytes]) {
  std::uint16_t slab[16][16];
  for (int lane = 0; lane < 32; ++lane) {
    std::uint32_t r[4];
    std::memcpy(r, in[lane], sizeof(r));
    for (int e = 0; e < 8; ++e)
      slab[mma::a_row(lane, e)][mma::a_col(lane, e)] = static_cast<std::uint16_t>(r[e / 2] >> (16 * (e % 2)));
  }
  for (int lane = 0; lane < 32; ++lane) {
    std::uint16_t rows[2][16];
    std::memcpy(rows[0], slab[lane / 4], sizeof(rows[0]));
    std::memcpy(rows[1], slab[lane / 4 + 8], sizeof(rows[1]));
    std::memcpy(out[lane], rows, sizeof(rows));
  }
}

template <typename InT>
float bits_value(std::uint16_t bits) {
  if constexpr (std::is_same_v<InT, f16>)
    return cpu::detail::half_bits_to_float(bits);
  else
    return cpu::detail::bf16_bits_to_float(bits);
}

}  // namespace detail

// acc (+)= A * B^T with A this warpgroup's 64 x 16 atom in registers and B
// the N x 16 slice `b` (scale_d = 0: acc = A * B^T; TransB = 1: `b` is
// MN-major). Every lane of the warp must call it (the A rows are exchanged
// within the warp).
template <int N, typename AccT, typename InT, int TransB = 0, int WB>
void mma_rs(accumulator_t<N, AccT>& acc, const std::uint32_t (&a)[4], const smem_desc<WB, InT>& b, int scale_d = 1,
            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(supported_v<N, AccT, InT> && sizeof(InT) == 2,
                "wgmma with A in registers takes N = 8..256 step 8, f16 inputs with f32 or f16 accumulators, or "
                "bf16 inputs with f32 accumulators");
  detail::require_major(b, TransB, "croq::wgmma::mma_rs", "B", file, line);
  std::uint16_t rows[2][16];
  if (!mma::detail::exchange_in_warp(
          "croq::wgmma::mma_rs (wgmma)", file, line, a, rows,
          [](cpu::detail::Warp& warp, unsigned s) { detail::gather_a_rows(warp.in[s], warp.out[s]); }))
    return;
  float arow[2][16];
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 16; ++k) arow[h][k] = detail::bits_value<InT>(rows[h][k]);
  detail::accumulate_rows<N, AccT, InT, WB, 16>(acc, arow, b, scale_d);
}

// ---- copies into a swizzled tile ---------------------------------------------
//
// copy_tile_swz is croq/device/tile_copy_core.h's, as on the device.

// cp.async into the swizzled layout zero-fills what lies outside the source,
// as the synchronous copy does; it is complete when it returns.
template <typename T, int R, int C, int NT, int W>
void cp_async_tile_swz(T* dst, int rows, int r0, int c0, const T* src, int ss0, int ss1, int sv0, int sv1, int rank) {
  copy_tile_swz<T, R, C, NT, W>(dst, rows, r0, c0, src, ss0, ss1, sv0, sv1, rank);
}

}  // namespace wgmma
}  // namespace croq
