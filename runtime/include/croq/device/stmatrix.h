// croq/device/stmatrix.h: warp-collective stores of 8x8 b16 matrices from
// registers to shared memory (`stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16`,
// sm_90). The inverse of ldmatrix (croq/device/ldmatrix.h):
//
//   Register r_q of every lane holds matrix q: without .trans, lane l holds
//   row l/4, elements 2*(l%4) and 2*(l%4)+1 (low half = even element), i.e.
//   the mma.sync / wgmma accumulator layout of an f16 8x8 block. With .trans
//   the matrix is written transposed.
//   Lanes 8q..8q+7 give the shared addresses of rows 0..7 of matrix q (16
//   contiguous, 16-byte-aligned bytes each); addresses of lanes >= 8N are
//   ignored.
//
// Storing an f16 m16n8 accumulator block (registers c0 = rows 0..7, c1 = rows
// 8..15) of a row-major tile sC: stmatrix_x2(cvta_shared(&sC[l % 16][0]), c0, c1).
#pragma once

#include <cstdint>

#include "croq/device/arch.h"

namespace croq {

// stmatrix.sync.aligned.m8n8.x1.shared.b16 [addr], {r0}
CROQ_DEVICE void stmatrix_x1(std::uint32_t smem_addr, std::uint32_t r0) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(smem_addr), "r"(r0) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// stmatrix.sync.aligned.m8n8.x2.shared.b16 [addr], {r0, r1}
CROQ_DEVICE void stmatrix_x2(std::uint32_t smem_addr, std::uint32_t r0, std::uint32_t r1) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_addr), "r"(r0), "r"(r1)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// stmatrix.sync.aligned.m8n8.x4.shared.b16 [addr], {r0, r1, r2, r3}
CROQ_DEVICE void stmatrix_x4(std::uint32_t smem_addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                             std::uint32_t r3) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [addr], {r0}
CROQ_DEVICE void stmatrix_x1_trans(std::uint32_t smem_addr, std::uint32_t r0) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(smem_addr), "r"(r0)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [addr], {r0, r1}
CROQ_DEVICE void stmatrix_x2_trans(std::uint32_t smem_addr, std::uint32_t r0, std::uint32_t r1) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_addr), "r"(r0),
               "r"(r1)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [addr], {r0, r1, r2, r3}
CROQ_DEVICE void stmatrix_x4_trans(std::uint32_t smem_addr, std::uint32_t r0, std::uint32_t r1,
                                   std::uint32_t r2, std::uint32_t r3) {
#if CROQ_SM90_ENABLED
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

}  // namespace croq
