// croq/device/mma_sync.h: the warp-level tensor-core MMA (sm_80+), D = A * B + C
// with A M x K, B K x 8 and C, D M x 8, every form `.row.col` (A K-contiguous
// per row, B per column; loads transpose as the operands are stored):
//
//   atom (M, KBytes)  instruction                               C/D
//   m16, 32 bytes     m16n8k16 .f16 / .bf16, m16n8k32 .e4m3 / .e5m2 / .s8 / .u8,
//                     m16n8k8 .tf32                             4 f32 / s32, 2 x u32 (4 f16)
//   m16, 16 bytes     m16n8k8 .f16 / .bf16, m16n8k16 .s8 / .u8, m16n8k4 .tf32
//                                                               4 f32 / s32, 2 x u32 (4 f16)
//   m8, 16 bytes      m8n8k16 .s8 / .u8                         2 s32
//   m8, 8 bytes       m8n8k4 .f16 (each quad pair its own 8x8)  8 f32, 4 x u32 (8 f16)
//
// The register layouts and the fragment types are in croq/device/mma_layout.h.
// `mma<InT>(acc, a, b)` accumulates in place and picks the instruction from
// the operand type and the fragment types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croq/device/arch.h"
#include "croq/device/mma_layout.h"
#include "croq/types.h"

namespace croq {
namespace mma {

// ---- instructions -----------------------------------------------------------
//
// One function per operand shape: D (4 or 8 f32, 2 or 4 packed f16, 2 or 4
// s32), A and B registers; the PTX name is the macro argument.

#if CROQ_SM80_ENABLED
#define CROQ_MMA_BODY(...) asm volatile(__VA_ARGS__)
#else
#define CROQ_MMA_BODY(...) CROQ_UNSUPPORTED_ARCH()
#endif

#define CROQ_MMA_D4_A4_B2(NAME, PTX, DT, DC)                                                                   \
  CROQ_DEVICE void NAME(DT (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2], const DT (&c)[4]) { \
    CROQ_MMA_BODY(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"               \
                  : "=" DC(d[0]), "=" DC(d[1]), "=" DC(d[2]), "=" DC(d[3])                                     \
                  : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), DC(c[0]), DC(c[1]),      \
                    DC(c[2]), DC(c[3]));                                                                        \
  }
#define CROQ_MMA_D4_A2_B1(NAME, PTX, DT, DC)                                                                   \
  CROQ_DEVICE void NAME(DT (&d)[4], const std::uint32_t (&a)[2], const std::uint32_t (&b)[1], const DT (&c)[4]) { \
    CROQ_MMA_BODY(PTX " {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"                                \
                  : "=" DC(d[0]), "=" DC(d[1]), "=" DC(d[2]), "=" DC(d[3])                                     \
                  : "r"(a[0]), "r"(a[1]), "r"(b[0]), DC(c[0]), DC(c[1]), DC(c[2]), DC(c[3]));                 \
  }
#define CROQ_MMA_D2_A4_B2(NAME, PTX)                                                                            \
  CROQ_DEVICE void NAME(std::uint32_t (&d)[2], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],        \
                        const std::uint32_t (&c)[2]) {                                                          \
    CROQ_MMA_BODY(PTX " {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"                                      \
                  : "=r"(d[0]), "=r"(d[1])                                                                      \
                  : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));  \
  }
#define CROQ_MMA_D2_A2_B1(NAME, PTX, DT)                                                                       \
  CROQ_DEVICE void NAME(DT (&d)[2], const std::uint32_t (&a)[2], const std::uint32_t (&b)[1], const DT (&c)[2]) { \
    CROQ_MMA_BODY(PTX " {%0, %1}, {%2, %3}, {%4}, {%5, %6};\n"                                                 \
                  : "=r"(d[0]), "=r"(d[1])                                                                      \
                  : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));                                    \
  }
#define CROQ_MMA_D2_A1_B1(NAME, PTX)                                                                            \
  CROQ_DEVICE void NAME(std::int32_t (&d)[2], const std::uint32_t (&a)[1], const std::uint32_t (&b)[1],         \
                        const std::int32_t (&c)[2]) {                                                           \
    CROQ_MMA_BODY(PTX " {%0, %1}, {%2}, {%3}, {%4, %5};\n"                                                     \
                  : "=r"(d[0]), "=r"(d[1])                                                                      \
                  : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));                                               \
  }

// m16, 32 bytes of K.
CROQ_MMA_D2_A4_B2(m16n8k16_f16_f16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")
CROQ_MMA_D4_A4_B2(m16n8k16_f32_f16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", float, "f")
CROQ_MMA_D4_A4_B2(m16n8k16_f32_bf16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", float, "f")
CROQ_MMA_D4_A4_B2(m16n8k8_f32_tf32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", float, "f")
CROQ_MMA_D4_A4_B2(m16n8k32_s32_s8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", std::int32_t, "r")
CROQ_MMA_D4_A4_B2(m16n8k32_s32_u8, "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", std::int32_t, "r")
// m16, 16 bytes of K.
CROQ_MMA_D2_A2_B1(m16n8k8_f16_f16, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", std::uint32_t)
CROQ_MMA_D4_A2_B1(m16n8k8_f32_f16, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", float, "f")
CROQ_MMA_D4_A2_B1(m16n8k8_f32_bf16, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", float, "f")
CROQ_MMA_D4_A2_B1(m16n8k4_f32_tf32, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", float, "f")
CROQ_MMA_D4_A2_B1(m16n8k16_s32_s8, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", std::int32_t, "r")
CROQ_MMA_D4_A2_B1(m16n8k16_s32_u8, "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32", std::int32_t, "r")
// m8, 16 bytes of K.
CROQ_MMA_D2_A1_B1(m8n8k16_s32_s8, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")
CROQ_MMA_D2_A1_B1(m8n8k16_s32_u8, "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32")

// m8n8k4 .f16 with an f16 accumulator: {d0..d3} f16x2, {a0, a1}, {b0, b1}.
CROQ_DEVICE void m8n8k4_f16_f16(std::uint32_t (&d)[4], const std::uint32_t (&a)[2], const std::uint32_t (&b)[2],
                                const std::uint32_t (&c)[4]) {
  CROQ_MMA_BODY("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
                "{%8, %9, %10, %11};\n"
                : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}
// m8n8k4 .f16 with an f32 accumulator: {d0..d7}.
CROQ_DEVICE void m8n8k4_f32_f16(float (&d)[8], const std::uint32_t (&a)[2], const std::uint32_t (&b)[2],
                                const float (&c)[8]) {
  CROQ_MMA_BODY("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, "
                "{%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};\n"
                : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
                : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]),
                  "f"(c[4]), "f"(c[5]), "f"(c[6]), "f"(c[7]));
}

// mma.sync.aligned.m16n8k32.row.col.f32.<e4m3|e5m2>.<same>.f32 (sm_89+)
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

#undef CROQ_MMA_D4_A4_B2
#undef CROQ_MMA_D4_A2_B1
#undef CROQ_MMA_D2_A4_B2
#undef CROQ_MMA_D2_A2_B1
#undef CROQ_MMA_D2_A1_B1

// acc += a * b with the instruction chosen by the operand type InT, the
// accumulator type and the atom (croq/device/mma_layout.h).
template <typename InT, typename AccT, int E, int M, int KB>
CROQ_DEVICE void mma(frag_c<AccT, E>& acc, const frag_a_t<M, KB>& a, const frag_b_t<M, KB>& b) {
  static_assert(has_instruction_v<InT, AccT, M, KB>, "no mma.sync takes these operand and accumulator types");
  static_assert(E == atom_shape<M, KB>::c_elems, "the accumulator fits the atom");
  constexpr bool k32 = KB == 32;
  if constexpr (KB == 8) {
    if constexpr (std::is_same_v<AccT, f16>)
      m8n8k4_f16_f16(acc.r, a.r, b.r, acc.r);
    else
      m8n8k4_f32_f16(acc.r, a.r, b.r, acc.r);
  } else if constexpr (std::is_same_v<AccT, s32>) {
    constexpr bool s = std::is_same_v<InT, s8>;
    if constexpr (M == 8) {
      if constexpr (s) m8n8k16_s32_s8(acc.r, a.r, b.r, acc.r);
      else m8n8k16_s32_u8(acc.r, a.r, b.r, acc.r);
    } else if constexpr (k32) {
      if constexpr (s) m16n8k32_s32_s8(acc.r, a.r, b.r, acc.r);
      else m16n8k32_s32_u8(acc.r, a.r, b.r, acc.r);
    } else {
      if constexpr (s) m16n8k16_s32_s8(acc.r, a.r, b.r, acc.r);
      else m16n8k16_s32_u8(acc.r, a.r, b.r, acc.r);
    }
  } else if constexpr (std::is_same_v<AccT, f16>) {
    if constexpr (k32) m16n8k16_f16_f16(acc.r, a.r, b.r, acc.r);
    else m16n8k8_f16_f16(acc.r, a.r, b.r, acc.r);
  } else if constexpr (std::is_same_v<InT, f16>) {
    if constexpr (k32) m16n8k16_f32_f16(acc.r, a.r, b.r, acc.r);
    else m16n8k8_f32_f16(acc.r, a.r, b.r, acc.r);
  } else if constexpr (std::is_same_v<InT, bf16>) {
    if constexpr (k32) m16n8k16_f32_bf16(acc.r, a.r, b.r, acc.r);
    else m16n8k8_f32_bf16(acc.r, a.r, b.r, acc.r);
  } else if constexpr (std::is_same_v<InT, float>) {
    if constexpr (k32) m16n8k8_f32_tf32(acc.r, a.r, b.r, acc.r);
    else m16n8k4_f32_tf32(acc.r, a.r, b.r, acc.r);
  } else {
    m16n8k32_f32_fp8<InT>(acc.r, a.r, b.r, acc.r);
  }
}

// ---- 2:4 sparse: mma.sp::ordered_metadata.sync ----------------------------------
//
// acc += A * B for a packed sparse A (croq/device/mma_layout.h): KB = 32 is
// m16n8k16 on f16 / bf16, KB = 64 m16n8k32 on f16 / bf16 and m16n8k64 on
// e4m3 / e5m2 (sm_89+); `e` the lane's metadata word, sparsity selector 0.

// The instruction PTX with A and B of `AN` registers each (2: m16n8k16, 4:
// the 64-byte atoms) into an f32 or a packed-f16 accumulator; expands inside
// mma_sp, whose acc, a, b and e it names.
#define CROQ_MMA_SP_F32(PTX)                                                                                   \
  do {                                                                                                        \
    if constexpr (AN == 2)                                                                                    \
      CROQ_MMA_BODY(PTX " {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, 0x0;\n"              \
                   : "=f"(acc.r[0]), "=f"(acc.r[1]), "=f"(acc.r[2]), "=f"(acc.r[3])                           \
                   : "r"(a.r[0]), "r"(a.r[1]), "r"(b.r[0]), "r"(b.r[1]), "f"(acc.r[0]), "f"(acc.r[1]),        \
                     "f"(acc.r[2]), "f"(acc.r[3]), "r"(e));                                                   \
    else                                                                                                      \
      CROQ_MMA_BODY(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "                            \
                       "{%12, %13, %14, %15}, %16, 0x0;\n"                                                    \
                   : "=f"(acc.r[0]), "=f"(acc.r[1]), "=f"(acc.r[2]), "=f"(acc.r[3])                           \
                   : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]),            \
                     "r"(b.r[2]), "r"(b.r[3]), "f"(acc.r[0]), "f"(acc.r[1]), "f"(acc.r[2]), "f"(acc.r[3]),    \
                     "r"(e));                                                                                 \
  } while (0)
#define CROQ_MMA_SP_F16(PTX)                                                                                   \
  do {                                                                                                        \
    if constexpr (AN == 2)                                                                                    \
      CROQ_MMA_BODY(PTX " {%0, %1}, {%2, %3}, {%4, %5}, {%6, %7}, %8, 0x0;\n"                                 \
                   : "=r"(acc.r[0]), "=r"(acc.r[1])                                                           \
                   : "r"(a.r[0]), "r"(a.r[1]), "r"(b.r[0]), "r"(b.r[1]), "r"(acc.r[0]), "r"(acc.r[1]),        \
                     "r"(e));                                                                                 \
    else                                                                                                      \
      CROQ_MMA_BODY(PTX " {%0, %1}, {%2, %3, %4, %5}, {%6, %7, %8, %9}, {%10, %11}, %12, 0x0;\n"              \
                   : "=r"(acc.r[0]), "=r"(acc.r[1])                                                           \
                   : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]),            \
                     "r"(b.r[2]), "r"(b.r[3]), "r"(acc.r[0]), "r"(acc.r[1]), "r"(e));                         \
  } while (0)
#define CROQ_MMA_SP(SHAPE, TYPES) "mma.sp::ordered_metadata.sync.aligned." SHAPE ".row.col." TYPES

template <typename InT, typename AccT, int E, int KB>
CROQ_DEVICE void mma_sp(frag_c<AccT, E>& acc, const frag_a_t<16, KB / 2>& a, const frag_b_t<16, KB>& b,
                        std::uint32_t e) {
  static_assert(has_sparse_instruction_v<InT, AccT, KB>, "no mma.sp.sync takes these operand and accumulator types");
  static_assert(E == 4, "the accumulator fits the m16n8 atom");
  constexpr int AN = KB / 16;
  if constexpr (std::is_same_v<InT, f16> && std::is_same_v<AccT, f16>) {
    if constexpr (KB == 32) CROQ_MMA_SP_F16(CROQ_MMA_SP("m16n8k16", "f16.f16.f16.f16"));
    else CROQ_MMA_SP_F16(CROQ_MMA_SP("m16n8k32", "f16.f16.f16.f16"));
  } else if constexpr (std::is_same_v<InT, f16>) {
    if constexpr (KB == 32) CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k16", "f32.f16.f16.f32"));
    else CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k32", "f32.f16.f16.f32"));
  } else if constexpr (std::is_same_v<InT, bf16>) {
    if constexpr (KB == 32) CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k16", "f32.bf16.bf16.f32"));
    else CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k32", "f32.bf16.bf16.f32"));
  } else {
#if CROQ_SM89_ENABLED
    if constexpr (std::is_same_v<InT, f8_e4m3>) CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k64", "f32.e4m3.e4m3.f32"));
    else CROQ_MMA_SP_F32(CROQ_MMA_SP("m16n8k64", "f32.e5m2.e5m2.f32"));
#else
    CROQ_UNSUPPORTED_ARCH();
#endif
  }
}

#undef CROQ_MMA_SP
#undef CROQ_MMA_SP_F32
#undef CROQ_MMA_SP_F16
#undef CROQ_MMA_BODY

}  // namespace mma
}  // namespace croq
