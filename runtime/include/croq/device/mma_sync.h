// croq/device/mma_sync.h: the warp-level tensor-core MMA (sm_80+), D = A * B + C
// with A 16 x K (M x K), B K x 8 (K x N), C and D 16 x 8 (M x N):
//
//   m16n8k16_f16_f16   .m16n8k16 .f16.f16.f16.f16     C/D: 2 x u32 (4 packed f16)
//   m16n8k16_f32_f16   .m16n8k16 .f32.f16.f16.f32     C/D: 4 x f32
//   m16n8k16_f32_bf16  .m16n8k16 .f32.bf16.bf16.f32   C/D: 4 x f32
//   m16n8k32_f32_fp8<f8_e4m3>   .m16n8k32 .f32.e4m3.e4m3.f32   C/D: 4 x f32 (sm_89+)
//   m16n8k32_f32_fp8<f8_e5m2>   .m16n8k32 .f32.e5m2.e5m2.f32   C/D: 4 x f32 (sm_89+)
//
// A is 4 x u32 and B 2 x u32 for every variant (8 16-bit or 16 8-bit values in
// A, 4 or 8 in B): the register layouts, the same in bytes for both sizes, are
// in croq/device/mma_layout.h with their coordinate functions. `mma<InT>(acc,
// a, b)` accumulates in place and picks the variant from the types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croq/device/arch.h"
#include "croq/device/mma_layout.h"
#include "croq/types.h"

namespace croq {
namespace mma {

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

// mma.sync.aligned.m16n8k32.row.col.f32.<e4m3|e5m2>.<same>.f32 {d0..d3}, {a0..a3}, {b0,b1}, {c0..c3}
template <typename InT>
CROQ_DEVICE void m16n8k32_f32_fp8(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                  const float (&c)[4]) {
#if CROQ_SM89_ENABLED
  if constexpr (std::is_same_v<InT, f8_e4m3>) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// acc += a * b with the variant chosen by the accumulator and input types:
// (f16, f16), (float, f16), (float, bf16), (float, f8_e4m3) or (float, f8_e5m2).
template <typename InT, typename AccT>
CROQ_DEVICE void mma(frag_c<AccT>& acc, const frag_a& a, const frag_b& b) {
  if constexpr (std::is_same_v<AccT, f16>) {
    static_assert(std::is_same_v<InT, f16>, "an f16 accumulator takes f16 inputs");
    m16n8k16_f16_f16(acc.r, a.r, b.r, acc.r);
  } else {
    static_assert(std::is_same_v<AccT, float>, "accumulators are f16 or float");
    static_assert(std::is_same_v<InT, f16> || std::is_same_v<InT, bf16> || std::is_same_v<InT, f8_e4m3> ||
                      std::is_same_v<InT, f8_e5m2>,
                  "mma.sync inputs are f16, bf16, f8_e4m3 or f8_e5m2");
    if constexpr (std::is_same_v<InT, f16>)
      m16n8k16_f32_f16(acc.r, a.r, b.r, acc.r);
    else if constexpr (std::is_same_v<InT, bf16>)
      m16n8k16_f32_bf16(acc.r, a.r, b.r, acc.r);
    else
      m16n8k32_f32_fp8<InT>(acc.r, a.r, b.r, acc.r);
  }
}

}  // namespace mma
}  // namespace croq
