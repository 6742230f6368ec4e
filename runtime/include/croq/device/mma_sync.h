// croq/device/mma_sync.h: the warp-level tensor-core MMA
// `mma.sync.aligned.m16n8k16.row.col.<d>.<a>.<b>.<c>` (sm_80+), D = A * B + C
// with A 16x16 (M x K), B 16x8 (K x N), C and D 16x8 (M x N).
//
// Functions are named m16n8k16_<accumulator type>_<input type>:
//   m16n8k16_f16_f16   .f16.f16.f16.f16     C/D: 2 x u32 (4 packed f16)
//   m16n8k16_f32_f16   .f32.f16.f16.f32     C/D: 4 x f32
//   m16n8k16_f32_bf16  .f32.bf16.bf16.f32   C/D: 4 x f32
// A is 4 x u32 (8 b16 values), B is 2 x u32 (4 b16 values) for every variant.
// `mma<AccT, InT>(acc, a, b)` accumulates in place and picks the variant from
// the types.
//
// Fragment layouts (PTX ISA "Matrix Fragments for mma.m16n8k16 with floating
// point type"). With g = lane / 4 (groupID) and t = lane % 4
// (threadID_in_group), lane `lane` holds:
//
//   A element e (0..7; register e/2, low half = even e):
//     row = g + 8 * ((e / 2) % 2)             e = 0,1,4,5 -> g;   e = 2,3,6,7 -> g + 8
//     col = 2 * t + (e % 2) + 8 * (e / 4)     e < 4 -> k 0..7;    e >= 4 -> k 8..15
//   B element e (0..3; register e/2, low half = even e):
//     row (k) = 2 * t + (e % 2) + 8 * (e / 2)
//     col (n) = g
//   C/D element e (0..3; f32: d[e]; f16: register e/2, low half = even e):
//     row = g + 8 * (e / 2)                   e = 0,1 -> g;  e = 2,3 -> g + 8
//     col = 2 * t + (e % 2)
//
// So the f16 accumulator register 0 of lane l is the pair C[l/4][2(l%4) .. +1]
// and register 1 the same pair eight rows down; a 32-bit store of each
// register writes the 16x8 tile. The functions a_row ... c_col below compute
// these coordinates for code that stores or loads fragments element-wise.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croq/device/arch.h"
#include "croq/types.h"

namespace croq {
namespace mma {

// ---- fragment coordinates (m16n8k16) -------------------------------------

CROQ_HOST_DEVICE constexpr int a_row(int lane, int e) { return lane / 4 + 8 * ((e / 2) % 2); }
CROQ_HOST_DEVICE constexpr int a_col(int lane, int e) { return 2 * (lane % 4) + (e % 2) + 8 * (e / 4); }
CROQ_HOST_DEVICE constexpr int b_row(int lane, int e) { return 2 * (lane % 4) + (e % 2) + 8 * (e / 2); }
CROQ_HOST_DEVICE constexpr int b_col(int lane, int /*e*/) { return lane / 4; }
CROQ_HOST_DEVICE constexpr int c_row(int lane, int e) { return lane / 4 + 8 * (e / 2); }
CROQ_HOST_DEVICE constexpr int c_col(int lane, int e) { return 2 * (lane % 4) + (e % 2); }

// ---- fragments ------------------------------------------------------------

// Operand A (16x16, row-major view), f16 or bf16.
struct frag_a {
  std::uint32_t r[4];
};
// Operand B (16x8, column-major view), f16 or bf16.
struct frag_b {
  std::uint32_t r[2];
};
// Accumulator C/D (16x8): f32 values, or f16 pairs packed in u32.
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

// ---- instructions -----------------------------------------------------------

// mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {d0,d1}, {a0..a3}, {b0,b1}, {c0,c1}
CROQ_DEVICE void m16n8k16_f16_f16(std::uint32_t (&d)[2], const std::uint32_t (&a)[4],
                                  const std::uint32_t (&b)[2], const std::uint32_t (&c)[2]) {
#if CROQ_SM80_ENABLED
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
      "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0,b1}, {c0..c3}
CROQ_DEVICE void m16n8k16_f32_f16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                  const float (&c)[4]) {
#if CROQ_SM80_ENABLED
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {d0..d3}, {a0..a3}, {b0,b1}, {c0..c3}
CROQ_DEVICE void m16n8k16_f32_bf16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                   const float (&c)[4]) {
#if CROQ_SM80_ENABLED
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// acc += a * b with the variant chosen by the accumulator and input types:
// (f16, f16), (float, f16) or (float, bf16).
template <typename InT, typename AccT>
CROQ_DEVICE void mma(frag_c<AccT>& acc, const frag_a& a, const frag_b& b) {
  if constexpr (std::is_same_v<AccT, f16>) {
    static_assert(std::is_same_v<InT, f16>, "an f16 accumulator takes f16 inputs");
    m16n8k16_f16_f16(acc.r, a.r, b.r, acc.r);
  } else {
    static_assert(std::is_same_v<AccT, float>, "accumulators are f16 or float");
    static_assert(std::is_same_v<InT, f16> || std::is_same_v<InT, bf16>,
                  "mma.sync m16n8k16 inputs are f16 or bf16");
    if constexpr (std::is_same_v<InT, f16>)
      m16n8k16_f32_f16(acc.r, a.r, b.r, acc.r);
    else
      m16n8k16_f32_bf16(acc.r, a.r, b.r, acc.r);
  }
}

}  // namespace mma
}  // namespace croq
