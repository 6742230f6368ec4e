// croq/device/wgmma_tile.h: what warpgroup MMA statements (`: group-4` on
// sm_90a) lower to: the swizzled shared layout of WGMMA operand tiles,
// descriptors of their k16 slices (K-major, or MN-major for transposed
// 16-bit operands), copies into that layout, loads of
// RS-mode A operands into registers, and accumulator fill and store.
//
// Layout. A shared tile of `rows` x C elements that WGMMA reads through a
// descriptor is stored
// K-major in blocks of W bytes per row (W = 32, 64 or 128, the swizzle
// width): column block kb holds columns [kb * W / sizeof(T), ...) of every
// row, `rows * W` bytes, and inside a block the 16-byte chunks of row r are
// permuted by the W-byte swizzle (croq::swizzle_offset): logical (r, c) is
// element swz_index<W, T>(r, c, rows) (croq/device/wgmma_layout.h). Every
// block starts 1024-byte aligned when the tile does and `rows` is a multiple
// of 8. The same layout holds an operand stored MN-major (`[K][M]` or
// `[K][N]`, rows along K): its swizzle rows then run along M or N, which is
// the canonical MN-major layout a transposed descriptor reads (desc_at_mn).
#pragma once

#include <cstdint>
#include <cstring>

#include "croq/device/arch.h"
#include "croq/device/cp_async.h"
#include "croq/device/mbarrier.h"
#include "croq/device/mma_tile.h"
#include "croq/device/stmatrix.h"
#include "croq/device/tma.h"
#include "croq/device/swizzle.h"
#include "croq/device/tile_copy.h"
#include "croq/device/tile_copy_core.h"
#include "croq/device/wgmma.h"
#include "croq/device/wgmma_layout.h"
#include "croq/scalar.h"
#include "croq/types.h"

namespace croq {
namespace wgmma {

// Descriptor of the K-major slice starting at logical (r0, c0) (r0 a
// multiple of 8, c0 a multiple of 8) of a swizzled tile of `rows` rows.
template <int W, typename T>
CROQ_DEVICE std::uint64_t desc_at(const T* base, int rows, int r0, int c0) {
  constexpr int kPerRow = W / static_cast<int>(sizeof(T));
  const int kb = c0 / kPerRow, cc = c0 % kPerRow;
  const T* start = base + kb * rows * kPerRow + r0 * kPerRow;
  return advance_desc(make_desc_k_major(start, swizzle_from_bytes(W)),
                      static_cast<std::uint32_t>(cc * static_cast<int>(sizeof(T))));
}

// Descriptor of the MN-major slice whose first K row is r0 (a multiple of 8)
// and whose first M or N column is c0 (a multiple of W / sizeof(T), the
// start of a column block) of a swizzled tile of `rows` rows: the tile is
// stored [K][MN] (A of `mma.col.*`, B of `mma.*.col`), a swizzle row holds W
// bytes along MN, 8 rows along K make a swizzle atom. For a transposed
// operand the descriptor's offsets swap roles (PTX ISA, "Shared Memory
// Matrix Layout"): LBO is the distance between column blocks along MN
// (rows * W bytes), SBO the distance between 8-row groups along K (8 * W).
template <int W, typename T>
CROQ_DEVICE std::uint64_t desc_at_mn(const T* base, int rows, int r0, int c0) {
  constexpr int kPerRow = W / static_cast<int>(sizeof(T));
  const T* start = base + (c0 / kPerRow) * rows * kPerRow + r0 * kPerRow;
  return make_desc(cvta_shared(start), static_cast<std::uint32_t>(rows * W), 8u * W, swizzle_from_bytes(W));
}

// ---- copies into a swizzled tile -------------------------------------------
//
// copy_tile_swz is in croq/device/tile_copy_core.h (shared with the CPU
// target); cp_async_tile_swz issues the same vectors as cp.async copies.

template <typename T, int R, int C, int NT, int W>
CROQ_DEVICE void cp_async_tile_swz(T* dst, int rows, int r0, int c0, const T* src, int ss0, int ss1, int sv0,
                                   int sv1, int rank) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  if (!swz_tile_vectorizable<T, R, C>(c0, src, ss0, ss1)) {
    copy_tile_swz<T, R, C, NT, W>(dst, rows, r0, c0, src, ss0, ss1, sv0, sv1, rank);
    return;
  }
  constexpr int VPR = C / V;
  if (sv0 >= R && sv1 >= C) {
#pragma unroll
    for (int it = 0; it < (R * VPR + NT - 1) / NT; ++it) {
      const int idx = rank + it * NT;
      if ((R * VPR) % NT != 0 && idx >= R * VPR) break;
      const int r = idx / VPR, c = (idx % VPR) * V;
      cp_async_cg_16(cvta_shared(dst + swz_index<W, T>(r0 + r, c0 + c, rows)), src + r * ss0 + c, 16);
    }
    return;
  }
  for (int idx = rank; idx < R * VPR; idx += NT) {
    const int r = idx / VPR, c = (idx % VPR) * V;
    T* d = dst + swz_index<W, T>(r0 + r, c0 + c, rows);
    const int sn = r < sv0 ? croq::detail::clamp_count(sv1 - c, V) : 0;
    const T* s = sn > 0 ? src + r * ss0 + c : src;
    cp_async_cg_16(cvta_shared(d), s, static_cast<std::uint32_t>(sn * sizeof(T)));
  }
}

// ---- TMA into a tile ---------------------------------------------------------
//
// One thread (`rank` 0: thread 0 of the CTA, or of an `inthreads` region)
// loads `Boxes` boxes of BoxRows x BoxCols elements at global
// (r0, c0 + b * BoxCols) to dst + b * box_stride (the column blocks of a
// swizzled tile, whose blocks are box_stride elements apart, or one dense
// box), all completing on `bar`. `dst` may be a stage of a larger buffer:
// 128-byte aligned, and at a multiple of the swizzle period (8 rows of a
// block) when swizzled.
// tma_load_tile arrives on `bar` expecting the bytes, and everyone waits with
// tma_wait; tma_issue_tile only issues the copies, for an event whose
// trigger arrives and expects them (croq/device/event.h arrive_tx).
// Cluster > 1 multicasts: the block of rank c in its cluster (of Cluster
// blocks, consecutive along grid x) loads rows [c, c + 1) * BoxRows / Cluster
// of each box, with a tensor map of that box height, into every block of
// the cluster; each block's `bar` receives all BoxRows rows' bytes.
template <typename T, int BoxRows, int BoxCols, int Boxes, int Cluster = 1>
CROQ_DEVICE void tma_issue_tile(T* dst, int box_stride, const CUtensorMap* map, std::uint64_t* bar, int r0, int c0,
                                int rank) {
  if (rank != 0) return;
  if constexpr (Cluster > 1) {
    constexpr int kRows = BoxRows / Cluster;
    const int c = static_cast<int>(blockIdx.x) % Cluster;
#pragma unroll
    for (int b = 0; b < Boxes; ++b)
      tma::load_2d_multicast(dst + b * box_stride + c * kRows * BoxCols, map, bar, r0 + c * kRows, c0 + b * BoxCols,
                             static_cast<std::uint16_t>((1u << Cluster) - 1u));
  } else {
#pragma unroll
    for (int b = 0; b < Boxes; ++b) tma::load_2d(dst + b * box_stride, map, bar, r0, c0 + b * BoxCols);
  }
}

template <typename T, int BoxRows, int BoxCols, int Boxes, int Cluster = 1>
CROQ_DEVICE void tma_load_tile(T* dst, int box_stride, const CUtensorMap* map, std::uint64_t* bar, int r0, int c0,
                               int rank) {
  if (rank != 0) return;
  mbarrier::arrive_expect_tx(bar, static_cast<std::uint32_t>(BoxRows * BoxCols * Boxes * sizeof(T)));
  tma_issue_tile<T, BoxRows, BoxCols, Boxes, Cluster>(dst, box_stride, map, bar, r0, c0, 0);
}

// Waits for the phase `phase` of `bar` to complete and moves to the next.
CROQ_DEVICE void tma_wait(std::uint64_t* bar, int& phase) {
  mbarrier::wait_parity(bar, static_cast<std::uint32_t>(phase));
  phase ^= 1;
}

// ---- RS-mode A fragments ---------------------------------------------------
//
// A register operand A [64 * m, K] is m x K/16 atoms of 64 x 16, one
// mma::frag_a per thread and atom: warp w of the warpgroup holds rows
// 16w .. 16w + 15 of each atom in the m16n8k16 A layout (wgmma.h, "RS mode A
// registers"; CUTLASS's GMMA ALayout_64x16 is the same map). The loads take
// the origin of a 64 x 16 atom and give every warp its 16-row slab; then
// they are the warp loads of croq/device/mma_tile.h.

// The index of this thread's warp in its warpgroup (0..3).
CROQ_DEVICE int warp_in_warpgroup() {
  return (static_cast<int>(threadIdx.x) / 32) % 4;
}

// A 64 x 16 atom from shared memory with ldmatrix. Trans = false: stored
// [M][K], row m at p + m * ld; Trans = true: stored [K][M], row k at p + k * ld.
template <bool Trans, typename T>
CROQ_DEVICE void load_a_ldsm(mma::frag_a& a, const T* p, int ld) {
  const int slab = 16 * warp_in_warpgroup();
  mma::load_a_ldsm<Trans>(a, Trans ? p + slab : p + slab * ld, ld);
}

// A 64 x 16 atom element by element: (m, k) at p[m * s0 + k * s1], the first
// v0 rows and v1 columns valid, the rest zero.
template <typename T>
CROQ_DEVICE void load_a(mma::frag_a& a, const T* p, int s0, int s1, int v0, int v1) {
  const int slab = 16 * warp_in_warpgroup();
  mma::load_a(a, p + slab * s0, s0, s1, v0 - slab, v1);
}

// Compiler-only barrier on the registers of an A fragment (see
// fence_operand): wgmma reads them asynchronously between issue and wait.
template <int R, int C>
CROQ_DEVICE void fence_operands(mma::frag_a (&a)[R][C]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int k = 0; k < C; ++k) fence_operands(a[i][k].r);
}

// ---- 2:4 sparse metadata ---------------------------------------------------

// This thread's metadata register of the tile at p (sparse_meta_word,
// croq/device/wgmma_layout.h); rows r >= v0 and columns c >= v1 read as zero.
template <typename InT, typename MetaT>
CROQ_DEVICE void load_sparse_meta(std::uint32_t& e, const MetaT* p, int s0, int s1, int v0, int v1) {
  e = sparse_meta_word<InT>(p, s0, s1, v0, v1, static_cast<int>(threadIdx.x) % 128);
}

// The register from words in the prepack_v2 layout (sparse_meta_word_v2):
// the tile starts `offset` words into the [M, ld] tensor at `base`.
template <typename InT>
CROQ_DEVICE void load_sparse_meta_v2(std::uint32_t& e, const std::uint32_t* base, int offset, int ld, int v0,
                                     int v1) {
  e = sparse_meta_word_v2<InT>(base, offset, ld, v0, v1, static_cast<int>(threadIdx.x) % 128);
}

// ---- accumulators ----------------------------------------------------------

template <int N, typename AccT>
CROQ_DEVICE void fill(accumulator_t<N, AccT>& acc, float v) {
  if constexpr (std::is_same_v<AccT, float>) {
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = v;
  } else {
    const std::uint32_t h = mma::pack2(__float2half_rn(v), __float2half_rn(v));
#pragma unroll
    for (int i = 0; i < N / 4; ++i) acc[i] = h;
  }
}

template <int N, typename AccT>
CROQ_DEVICE float acc_value(const accumulator_t<N, AccT>& acc, int i) {
  if constexpr (std::is_same_v<AccT, float>) {
    return acc[i];
  } else {
    const std::uint16_t bits = static_cast<std::uint16_t>(acc[i / 2] >> ((i % 2) * 16));
    f16 h;
    std::memcpy(&h, &bits, 2);
    return __half2float(h);
  }
}

namespace detail {

// Two accumulator values converted to a 16-bit OutT, packed as stmatrix
// takes them: the first in the low half.
template <typename OutT>
CROQ_DEVICE std::uint32_t pack_out2(float lo, float hi) {
  const OutT a = cvt<OutT>(lo), b = cvt<OutT>(hi);
  std::uint16_t x, y;
  std::memcpy(&x, &a, 2);
  std::memcpy(&y, &b, 2);
  return static_cast<std::uint32_t>(x) | (static_cast<std::uint32_t>(y) << 16);
}

// Element pair (c, c + 1) of a row, stored at once.
template <typename OutT>
struct alignas(2 * sizeof(OutT)) out_pair {
  OutT v[2];
};

// The whole 64 x N accumulator into a shared tile with stmatrix: 16 x 16
// blocks with .x4, an odd last 8 columns with .x2. Row-major (Trans =
// false): element (r, c) at p[r * ld + c]; column-major (Trans = true): at
// p[r + c * ld]. `p` and every row (column) of 8 elements are 16-byte
// aligned. Warp w of the warpgroup writes its own rows 16w .. 16w + 15, as
// the element stores do.
template <bool Trans, int N, typename AccT, typename OutT>
CROQ_DEVICE void store_acc_stsm(const accumulator_t<N, AccT>& acc, OutT* p, int ld) {
  const int tid = static_cast<int>(threadIdx.x) % 128;
  const int lane = tid % 32, q = lane / 8;
  // Lanes 8q .. 8q + 7 address matrix q: q % 2 picks rows 0-7 or 8-15 of the
  // warp's slab, q / 2 the first or second 8 columns of a 16-column block.
  const int row = 16 * (tid / 32) + 8 * (q % 2), col = 8 * (q / 2);
  auto v = [&](int i) { return acc_value<N, AccT>(acc, i); };
#pragma unroll
  for (int b = 0; b < N / 16; ++b) {
    const int i = 8 * b;
    const std::uint32_t r0 = pack_out2<OutT>(v(i), v(i + 1)), r1 = pack_out2<OutT>(v(i + 2), v(i + 3));
    const std::uint32_t r2 = pack_out2<OutT>(v(i + 4), v(i + 5)), r3 = pack_out2<OutT>(v(i + 6), v(i + 7));
    if constexpr (Trans) {
      stmatrix_x4_trans(cvta_shared(p + (16 * b + col + lane % 8) * ld + row), r0, r1, r2, r3);
    } else {
      stmatrix_x4(cvta_shared(p + (row + lane % 8) * ld + 16 * b + col), r0, r1, r2, r3);
    }
  }
  if constexpr (N % 16 == 8) {
    constexpr int i = 4 * (N / 8 - 1);
    const std::uint32_t r0 = pack_out2<OutT>(v(i), v(i + 1)), r1 = pack_out2<OutT>(v(i + 2), v(i + 3));
    // Lanes 0 .. 15 address the two matrices; the addresses of the others are
    // ignored but kept inside the tile.
    const int rr = 16 * (tid / 32) + 8 * (q % 2);
    if constexpr (Trans) {
      stmatrix_x2_trans(cvta_shared(p + (N - 8 + lane % 8) * ld + rr), r0, r1);
    } else {
      stmatrix_x2(cvta_shared(p + (rr + lane % 8) * ld + N - 8), r0, r1);
    }
  }
}

// The whole 64 x N accumulator into row-major memory (element (r, c) at
// p[r * ld + c]: global memory, or shared rows stmatrix cannot take), 8
// bytes a thread: of each 16-column block, a quad of lanes holds two
// 8-column pairs per row; two exchanges within the quad give each lane 4
// consecutive elements (lanes 0, 1, 2, 3 get columns 0-3, 4-7, 12-15, 8-11),
// so that a warp's store fills whole 32-byte sectors of 8 rows instead of
// half of each. `p` and `ld` keep every 4 elements 8-byte aligned; all 32
// lanes of each warp take part.
template <int N, typename AccT, typename OutT>
CROQ_DEVICE void store_acc_quads(const accumulator_t<N, AccT>& acc, OutT* p, int ld) {
  const int tid = static_cast<int>(threadIdx.x) % 128;
  const int t = tid % 4;
  const bool odd = t % 2 != 0, upper = t >= 2;
  const int col = 8 * (t / 2) + 4 * ((t % 2) ^ (t / 2));
  auto v = [&](int i) { return acc_value<N, AccT>(acc, i); };
#pragma unroll
  for (int b = 0; b < N / 16; ++b) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // x0, x1: this lane's pair of row `h` in column groups 2b and 2b + 1.
      const std::uint32_t x0 = pack_out2<OutT>(v(8 * b + 2 * h), v(8 * b + 2 * h + 1));
      const std::uint32_t x1 = pack_out2<OutT>(v(8 * b + 4 + 2 * h), v(8 * b + 4 + 2 * h + 1));
      const std::uint32_t keep = upper ? x1 : x0;
      const std::uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? x0 : x1, 2);
      const std::uint32_t other = __shfl_xor_sync(0xffffffffu, odd ? keep : got, 1);
      uint2 out;
      out.x = odd ? other : keep;
      out.y = odd ? got : other;
      const int row = acc_row(tid, 2 * h);
      *reinterpret_cast<uint2*>(p + row * ld + 16 * b + col) = out;
    }
  }
}

}  // namespace detail

// Stores the 64 x N accumulator of this thread's warpgroup: element (r, c)
// to p[r * s0 + c * s1] converted to OutT, only where r < v0 and c < v1.
// A whole tile of a 16-bit type in shared memory, rows (or, with s0 == 1,
// columns) contiguous and 16-byte aligned, is written with stmatrix (the
// warpgroup executes it together: p, the strides and the extents are the
// same in every thread, as the lowering passes them). Other contiguous rows
// are written a pair of elements at a time where the pair is aligned, the
// rest element by element, except that a whole tile of a 16-bit type whose
// rows hold 8-byte aligned quads of elements is written a quad at a time.
template <int N, typename AccT, typename OutT>
CROQ_DEVICE void store_acc(const accumulator_t<N, AccT>& acc, OutT* p, int s0, int s1, int v0, int v1) {
  const int tid = static_cast<int>(threadIdx.x) % 128;
  const bool full = v0 >= 64 && v1 >= N;
#if CROQ_SM90_ENABLED
  if constexpr (sizeof(OutT) == 2 && N % 8 == 0) {
    constexpr int kVec = 16 / static_cast<int>(sizeof(OutT));
    const bool whole = full && reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && __isShared(p);
    if (whole && s1 == 1 && s0 % kVec == 0) {
      detail::store_acc_stsm<false, N, AccT, OutT>(acc, p, s0);
      return;
    }
    if (whole && s0 == 1 && s1 % kVec == 0) {
      detail::store_acc_stsm<true, N, AccT, OutT>(acc, p, s1);
      return;
    }
  }
#endif
  if constexpr (sizeof(OutT) == 2 && N % 16 == 0) {
    if (full && s1 == 1 && s0 % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 8 == 0 &&
        __activemask() == 0xffffffffu) {
      detail::store_acc_quads<N, AccT, OutT>(acc, p, s0);
      return;
    }
  }
  if constexpr (sizeof(OutT) == 1 || sizeof(OutT) == 2 || sizeof(OutT) == 4) {
    if (s1 == 1 && s0 % 2 == 0 && reinterpret_cast<std::uintptr_t>(p) % (2 * sizeof(OutT)) == 0) {
      // acc_col of an even i is even, so (c, c + 1) is an aligned pair.
#pragma unroll
      for (int i = 0; i < N / 2; i += 2) {
        const int r = acc_row(tid, i), c = acc_col(tid, i);
        if (r >= v0 || c >= v1) continue;
        OutT* q = p + r * s0 + c;
        if (c + 1 < v1) {
          detail::out_pair<OutT> pr;
          pr.v[0] = cvt<OutT>(acc_value<N, AccT>(acc, i));
          pr.v[1] = cvt<OutT>(acc_value<N, AccT>(acc, i + 1));
          *reinterpret_cast<detail::out_pair<OutT>*>(q) = pr;
        } else {
          *q = cvt<OutT>(acc_value<N, AccT>(acc, i));
        }
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const int r = acc_row(tid, i), c = acc_col(tid, i);
    if (r < v0 && c < v1) p[r * s0 + c * s1] = cvt<OutT>(acc_value<N, AccT>(acc, i));
  }
}

// Block scaling (`mma.scale`, spec 13.6): this thread's row factors of the
// scales at `sa` (row r at sa[r * s0], rows r >= v0 scale by zero) times
// `sb`; then d += part * factor for every element of the 64 x N
// accumulator, where `part` holds one K block's products.
template <typename ScaleT>
CROQ_DEVICE row_scales load_row_scales(const ScaleT* sa, int s0, int v0, float sb) {
  return row_scales_of(static_cast<int>(threadIdx.x) % 128, sa, s0, v0, sb);
}
template <int N, typename AccT>
CROQ_DEVICE void scale_add(accumulator_t<N, AccT>& d, const accumulator_t<N, AccT>& part, const row_scales& s) {
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const float v = acc_value<N, AccT>(d, i) + acc_value<N, AccT>(part, i) * row_scale(s, i);
    if constexpr (std::is_same_v<AccT, float>) {
      d[i] = v;
    } else {
      const __half h = __float2half_rn(v);
      std::uint16_t bits;
      std::memcpy(&bits, &h, 2);
      const int shift = (i % 2) * 16;
      d[i / 2] = (d[i / 2] & ~(0xFFFFu << shift)) | (static_cast<std::uint32_t>(bits) << shift);
    }
  }
}

}  // namespace wgmma
}  // namespace croq
