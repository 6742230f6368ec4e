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

}  // namespace wgmma
}  // namespace croq
