// croq/device/mma_layout.h: the register layout of a warp's `mma.sync`
// operands as data and index functions that compile for host and device, so
// that the GPU wrappers (croq/device/mma_tile.h) and the CPU emulation
// (croq/cpu/device.h) hold the same elements in the same registers: the
// fragment types, the coordinates of each element, and the element-wise,
// bounds-checked loads of A and B atoms.
//
// One atom is m16n8kK with K = 32 bytes of a row (atom_k_v: k16 for 16-bit
// operands, k32 for 8-bit floats). In bytes the two layouts are the same
// (PTX ISA, "Matrix Fragments for mma.m16n8k16" and "mma.m16n8k32"): with
// g = lane / 4 (groupID), t = lane % 4 (threadID_in_group) and P = 4 / sizeof(T)
// elements per 32-bit register, lane `lane` holds
//
//   A element e (0 .. 4P-1; register e / P, lowest bits first):
//     row = g + 8 * ((e / P) % 2),   col = P * t + e % P + 4P * (e / (2P))
//   B element e (0 .. 2P-1; register e / P):
//     row (k) = P * t + e % P + 4P * (e / P),   col (n) = g
//   C/D element e (0..3; f32: d[e]; f16: register e / 2, low half = even e):
//     row = g + 8 * (e / 2),   col = 2 * t + e % 2
//
// For 16-bit operands (P = 2) A element e is at row g + 8 * ((e / 2) % 2),
// column 2t + e % 2 + 8 * (e / 4).
#pragma once

#include <cstdint>
#include <cstring>

#include "croq/types.h"

namespace croq {
namespace mma {

// ---- fragments --------------------------------------------------------------

// Operand A (16 x K, row-major view): 4 registers.
struct frag_a {
  std::uint32_t r[4];
};
// Operand B (K x 8, column-major view): 2 registers.
struct frag_b {
  std::uint32_t r[2];
};
// Accumulator C/D (16 x 8): f32 values, or f16 pairs packed in u32.
template <typename AccT>
struct frag_c;
template <>
struct frag_c<float> {
  float r[4];
};
template <>
struct frag_c<f16> {
  std::uint32_t r[2];
};

// The K of one atom for operands of type T.
template <typename T>
inline constexpr int atom_k_v = mma_instruction_k_v<T>;

// ---- coordinates (Bytes: the operand size, 2 or 1) ----------------------------

template <int Bytes = 2>
CROQ_HOST_DEVICE constexpr int a_row(int lane, int e) {
  constexpr int P = 4 / Bytes;
  return lane / 4 + 8 * ((e / P) % 2);
}
template <int Bytes = 2>
CROQ_HOST_DEVICE constexpr int a_col(int lane, int e) {
  constexpr int P = 4 / Bytes;
  return P * (lane % 4) + e % P + 4 * P * (e / (2 * P));
}
template <int Bytes = 2>
CROQ_HOST_DEVICE constexpr int b_row(int lane, int e) {
  constexpr int P = 4 / Bytes;
  return P * (lane % 4) + e % P + 4 * P * (e / P);
}
CROQ_HOST_DEVICE constexpr int b_col(int lane, int /*e*/) { return lane / 4; }
CROQ_HOST_DEVICE constexpr int c_row(int lane, int e) { return lane / 4 + 8 * (e / 2); }
CROQ_HOST_DEVICE constexpr int c_col(int lane, int e) { return 2 * (lane % 4) + (e % 2); }

// ---- packing ----------------------------------------------------------------

// Two 16-bit values in one register, `lo` in the low half.
template <typename T>
CROQ_HOST_DEVICE std::uint32_t pack2(T lo, T hi) {
  static_assert(sizeof(T) == 2, "operands are 16-bit");
  std::uint16_t a, b;
  std::memcpy(&a, &lo, 2);
  std::memcpy(&b, &hi, 2);
  return static_cast<std::uint32_t>(a) | (static_cast<std::uint32_t>(b) << 16);
}

// The 4 / sizeof(T) values v[0..] in one register, v[0] in the lowest bits.
template <typename T>
CROQ_HOST_DEVICE std::uint32_t pack_register(const T* v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "operands are 16- or 8-bit");
  std::uint32_t r;
  std::memcpy(&r, v, 4);
  return r;
}

// ---- element loads (any memory, with bounds) ----------------------------------
//
// Element (i, j) of an atom lives at p[i * s0 + j * s1]: A atoms are indexed
// (m, k), B atoms (n, k); the first v0 rows and v1 columns are valid, the
// rest read as zero. `lane` is the caller's lane in its warp.

template <typename T>
CROQ_HOST_DEVICE T load_or_zero(const T* p, int i, int j, int s0, int s1, int v0, int v1) {
  return (i < v0 && j < v1) ? p[i * s0 + j * s1] : utils::from_f32<T>(0.0f);
}

template <typename T>
CROQ_HOST_DEVICE void load_a_lane(frag_a& a, int lane, const T* p, int s0, int s1, int v0, int v1) {
  constexpr int B = static_cast<int>(sizeof(T)), P = 4 / B;
  for (int reg = 0; reg < 4; ++reg) {
    T v[P];
    for (int x = 0; x < P; ++x) {
      const int e = reg * P + x;
      v[x] = load_or_zero(p, a_row<B>(lane, e), a_col<B>(lane, e), s0, s1, v0, v1);
    }
    a.r[reg] = pack_register(v);
  }
}

template <typename T>
CROQ_HOST_DEVICE void load_b_lane(frag_b& b, int lane, const T* p, int s0, int s1, int v0, int v1) {
  constexpr int B = static_cast<int>(sizeof(T)), P = 4 / B;
  for (int reg = 0; reg < 2; ++reg) {
    T v[P];
    for (int x = 0; x < P; ++x) {
      const int e = reg * P + x;
      v[x] = load_or_zero(p, b_col(lane, e), b_row<B>(lane, e), s0, s1, v0, v1);
    }
    b.r[reg] = pack_register(v);
  }
}

}  // namespace mma
}  // namespace croq
