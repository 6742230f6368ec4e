// croq/device/wgmma_layout.h: the two layouts of a warpgroup MMA as index
// functions that compile for host and device: where logical element (r, c)
// of a WGMMA operand tile lives in shared memory (the swizzled K-major layout
// of croq/device/wgmma_tile.h), and which accumulator element of which
// warpgroup thread holds element (row, col) of an m64nN result (the layout of
// croq/device/wgmma.h). The GPU wrappers and the CPU emulation
// (croq/cpu/wgmma.h) both use these functions, so a tile copied and an
// accumulator stored on either target hold the same elements in the same
// places; and the accumulator type and the legal shapes, shared the same way.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croq/device/swizzle.h"
#include "croq/types.h"

namespace croq {
namespace wgmma {

// The per-thread accumulator of an m64nN wgmma: float[N/2] for f32, or
// uint32_t[N/4] (packed f16 pairs) for f16.
template <int N, typename AccT>
struct accumulator;
template <int N>
struct accumulator<N, float> {
  static constexpr int registers = N / 2;
  using type = float[N / 2];
};
template <int N>
struct accumulator<N, f16> {
  static constexpr int registers = N / 4;
  using type = std::uint32_t[N / 4];
};
template <int N, typename AccT>
using accumulator_t = typename accumulator<N, AccT>::type;

// The K of one dense wgmma: 32 bytes of each operand row (k16 for 16-bit
// inputs, k32 for 8-bit floats).
template <typename InT>
inline constexpr int k_per_instr_v = mma_instruction_k_v<InT>;

// The shapes and types wgmma m64nNk16 / m64nNk32 takes: f16 operands with f32
// or f16 accumulators, bf16 with f32, and e4m3 or e5m2 (A and B of one type)
// with f32 or f16.
template <int N, typename AccT, typename InT>
inline constexpr bool supported_v =
    N >= 8 && N <= 256 && N % 8 == 0 &&
    (((std::is_same_v<InT, f16> || std::is_same_v<InT, f8_e4m3> || std::is_same_v<InT, f8_e5m2>) &&
      (std::is_same_v<AccT, float> || std::is_same_v<AccT, f16>)) ||
     (std::is_same_v<InT, bf16> && std::is_same_v<AccT, float>));

// Element index of logical (r, c) in a swizzled K-major tile of `rows` rows
// (W = 32, 64 or 128 bytes per swizzle row): column block kb = c / (W /
// sizeof(T)) holds those columns of every row, `rows * W` bytes, and inside a
// block the 16-byte chunks of each row are permuted by the W-byte swizzle.
template <int W, typename T>
CROQ_HOST_DEVICE int swz_index(int r, int c, int rows) {
  constexpr int kPerRow = W / static_cast<int>(sizeof(T));
  const int kb = c / kPerRow, cc = c % kPerRow;
  const std::uint32_t byte = swizzle_offset(swizzle_from_bytes(W), static_cast<std::uint32_t>(r * W) +
                                                                       static_cast<std::uint32_t>(cc * sizeof(T)));
  return kb * rows * kPerRow + static_cast<int>(byte / sizeof(T));
}

// Row / column of accumulator element i (0 .. N/2 - 1) of warpgroup thread
// `tid` (0..127): the mma.sync m16n8k16 C layout repeated over N/8 column
// blocks, one 16-row slab per warp.
CROQ_HOST_DEVICE constexpr int acc_row(int tid, int i) {
  return 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((i / 2) % 2);
}
CROQ_HOST_DEVICE constexpr int acc_col(int tid, int i) { return 8 * (i / 4) + 2 * (tid % 4) + (i % 2); }

// Block scaling (`mma.scale`): the factors of the two accumulator rows of
// thread `tid`, acc_row(tid, 0) (`lo`) and the row 8 below it (`hi`): the
// row scale of A times the scale of B, zero for rows at or past `v0`. They
// are loaded ahead of the K block's WGMMAs, whose results they then scale
// (scale_add); row_scale gives element i's factor.
struct row_scales {
  float lo, hi;
};
template <typename ScaleT>
CROQ_HOST_DEVICE row_scales row_scales_of(int tid, const ScaleT* sa, int s0, int v0, float sb) {
  const int r = acc_row(tid, 0);
  return {r < v0 ? to_f32(sa[r * s0]) * sb : 0.0f, r + 8 < v0 ? to_f32(sa[(r + 8) * s0]) * sb : 0.0f};
}
CROQ_HOST_DEVICE constexpr float row_scale(const row_scales& s, int i) { return (i / 2) % 2 ? s.hi : s.lo; }

// ---- 2:4 sparse metadata (wgmma.mma_async.sp, sparsity selector 0) --------
//
// A sparse wgmma m64nNkK reads A as 64 x K/2 kept elements and one 32-bit
// metadata register per thread: a nibble per group of four K elements (bits
// 0-1 and 2-3: the positions of its two kept elements; croq/sparse.h).
// Thread `tid` of the warpgroup, warp w = tid / 32, lane l, g = (l / 4) % 8:
//   16-bit operands (K = 32): rows r = 16w + g (low 16 bits) and r + 8 (high
//     16 bits), groups 4 * (l % 2) .. + 3 (K 16 * (l % 2) .. + 15); lanes with
//     l % 4 >= 2 are not read (selector 0) and hold the word of lane l - 2.
//   8-bit operands (K = 64): row 16w + g + 8 * (l % 2), groups 8 * ((l / 2) %
//     2) .. + 7 (K 32 * ((l / 2) % 2) .. + 31).
// A metadata tile is [64, K / (8 * sizeof(MetaT))] per instruction (K bits
// of nibbles per row): u8 rows
// as Sparse2to4HostPolicyWGMMA::encode writes them, or u32 words, which for
// 16-bit operands are the prepacked rows of ...::prepack (row 16w + 2g + l %
// 2 is this thread's word) and for 8-bit operands the two words per row of
// Sparse2to4HostPolicy<V, u32, 64>::encode.

template <typename InT, typename MetaT>
inline constexpr int sparse_meta_cols_v = (sizeof(InT) == 1 ? 64 : 32) / (8 * static_cast<int>(sizeof(MetaT)));

// This thread's metadata register from the tile at p (element (r, c) at
// p[r * s0 + c * s1]; rows r >= v0 and columns c >= v1 read as zero).
template <typename InT, typename MetaT>
CROQ_HOST_DEVICE std::uint32_t sparse_meta_word(const MetaT* p, int s0, int s1, int v0, int v1, int tid) {
  static_assert(std::is_same_v<MetaT, std::uint8_t> || std::is_same_v<MetaT, std::uint32_t>,
                "sparse metadata is u8 or u32");
  const int w = tid / 32, l = tid % 32, g = (l / 4) % 8;
  auto at = [&](int r, int c) -> std::uint32_t {
    return r < v0 && c < v1 ? static_cast<std::uint32_t>(p[r * s0 + c * s1]) : 0u;
  };
  if constexpr (sizeof(InT) == 2 && sizeof(MetaT) == 1) {
    const int r = 16 * w + g, c = 2 * (l % 2);
    return at(r, c) | (at(r, c + 1) << 8) | (at(r + 8, c) << 16) | (at(r + 8, c + 1) << 24);
  } else if constexpr (sizeof(InT) == 2) {
    return at(16 * w + 2 * g + l % 2, 0);
  } else if constexpr (sizeof(MetaT) == 1) {
    const int r = 16 * w + g + 8 * (l % 2), c = 4 * ((l / 2) % 2);
    return at(r, c) | (at(r, c + 1) << 8) | (at(r, c + 2) << 16) | (at(r, c + 3) << 24);
  } else {
    return at(16 * w + g + 8 * (l % 2), (l / 2) % 2);
  }
}

// The same register from u32 words regrouped as croq/sparse.h's prepack_v2
// (16-bit operands: [M / 16][F][16], a word per thread row of a 16-row
// block) or prepack_v2_fp8_reorder (8-bit: [M / 16][F / 2][32], the 32 words
// of a 16-row block and 64-wide fragment in lane order): `offset` is where
// the tile starts in the [M, F] tensor at `base` (F = ld words per row; its
// row a multiple of 16, its column of 2 for 8-bit operands); rows r >= v0
// and columns c >= v1 of the tile read as zero.
template <typename InT>
CROQ_HOST_DEVICE std::uint32_t sparse_meta_word_v2(const std::uint32_t* base, int offset, int ld, int v0, int v1,
                                                   int tid) {
  const int w = tid / 32, l = tid % 32, g = (l / 4) % 8;
  const int r0 = offset / ld, c0 = offset % ld;
  if constexpr (sizeof(InT) == 2) {
    if (16 * w + 2 * g + l % 2 >= v0 || v1 < 1) return 0u;
    return base[((r0 / 16 + w) * ld + c0) * 16 + 2 * g + l % 2];
  } else {
    if (16 * w + g + 8 * (l % 2) >= v0 || (l / 2) % 2 >= v1) return 0u;
    return base[((r0 / 16 + w) * (ld / 2) + c0 / 2) * 32 + l];
  }
}

// Where the hardware finds the nibble of group q (0 .. K/4 - 1) of row
// 16w + g + 8h of an instruction's A: the lane (within the warp) whose
// register holds it, and the bit it starts at.
template <typename InT>
CROQ_HOST_DEVICE constexpr int sparse_meta_lane(int g, int h, int q) {
  return sizeof(InT) == 2 ? 4 * g + q / 4 : 4 * g + 2 * (q / 8) + h;
}
template <typename InT>
CROQ_HOST_DEVICE constexpr int sparse_meta_shift(int h, int q) {
  return sizeof(InT) == 2 ? 16 * h + 4 * (q % 4) : 4 * (q % 8);
}

}  // namespace wgmma
}  // namespace croq
