// croq/device/wgmma_layout.h: the two layouts of a warpgroup MMA as index
// functions that compile for host and device: where logical element (r, c)
// of a WGMMA operand tile lives in shared memory (the swizzled K-major layout
// of croq/device/wgmma_tile.h), and which accumulator element of which
// warpgroup thread holds element (row, col) of an m64nN result (the layout of
// croq/device/wgmma.h). The GPU wrappers and the CPU emulation
// (croq/cpu/wgmma.h) both use these functions, so a tile copied and an
// accumulator stored on either target hold the same elements in the same
// places.
#pragma once

#include <cstdint>

#include "croq/device/swizzle.h"
#include "croq/types.h"

namespace croq {
namespace wgmma {

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
