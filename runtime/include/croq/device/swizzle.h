// croq/device/swizzle.h: the shared-memory XOR swizzles shared by TMA
// (CU_TENSOR_MAP_SWIZZLE_{32,64,128}B), wgmma descriptors (swizzle modes) and
// the `.swiz<N>` modifier of dma.copy / mma.load (spec 12.9).
//
// A swizzled tile is laid out in rows of N bytes (N = 32, 64 or 128). Within
// each 16-byte-granular address, the 16-byte chunk index (address bits 4..6)
// is XORed with address bits 7..9, masked to the swizzle width:
//
//   128B: bits 4..6 ^= bits 7..9    chunk ^= (byte_offset / 128) % 8
//    64B: bits 4..5 ^= bits 7..8    chunk ^= (byte_offset / 128) % 4
//    32B: bit  4    ^= bit  7       chunk ^= (byte_offset / 128) % 2
//
// The pattern repeats every 1024 (128B), 512 (64B) or 256 (32B) bytes; the
// hardware applies it to absolute shared addresses, so a swizzled tile must
// start at a multiple of that period (1024 bytes covers every mode).
#pragma once

#include <cstdint>

#include "croq/types.h"

namespace croq {

enum class swizzle_mode : std::uint8_t { none = 0, b32 = 32, b64 = 64, b128 = 128 };

// Width in bytes of one swizzled row (0 for none).
CROQ_HOST_DEVICE constexpr std::uint32_t swizzle_bytes(swizzle_mode mode) {
  return static_cast<std::uint32_t>(mode);
}

// The physical byte offset, from a suitably aligned tile base, of the element
// at logical (unswizzled) byte offset `offset`.
CROQ_HOST_DEVICE constexpr std::uint32_t swizzle_offset(swizzle_mode mode, std::uint32_t offset) {
  switch (mode) {
    case swizzle_mode::b128: return offset ^ ((offset >> 3) & 0x70u);
    case swizzle_mode::b64: return offset ^ ((offset >> 3) & 0x30u);
    case swizzle_mode::b32: return offset ^ ((offset >> 3) & 0x10u);
    case swizzle_mode::none: break;
  }
  return offset;
}

// Maps the byte widths of `.swiz<N>` (32, 64, 128; 0 = none) to a mode.
CROQ_HOST_DEVICE constexpr swizzle_mode swizzle_from_bytes(int bytes) {
  return bytes == 128  ? swizzle_mode::b128
         : bytes == 64 ? swizzle_mode::b64
         : bytes == 32 ? swizzle_mode::b32
                       : swizzle_mode::none;
}

}  // namespace croq
