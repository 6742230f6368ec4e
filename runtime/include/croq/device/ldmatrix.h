// croq/device/ldmatrix.h: warp-collective loads of 8x8 b16 matrices from
// shared memory into registers (`ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16`,
// sm_75+; guarded for sm_80+ with the rest of the mma.sync path).
//
// Operands. Each of the 32 lanes passes one shared address (cvta_shared(),
// from croq/device/arch.h): for .xN, lanes 8q..8q+7 give the start addresses
// of rows 0..7 of matrix q (q < N); each row is 8 contiguous b16 elements
// (16 bytes, 16-byte aligned). Addresses of lanes >= 8N are ignored but must
// still be valid shared addresses (pass any in-range row).
//
// Result. Register r_q holds matrix q. Without .trans, lane l receives row
// l/4, elements 2*(l%4) and 2*(l%4)+1 of the matrix (low half = the even
// element). With .trans, lane l receives the elements at rows 2*(l%4) and
// 2*(l%4)+1 of column l/4, i.e. the same distribution of the transposed
// matrix. These are exactly the mma.sync m16n8k16 fragment layouts (see
// croq/device/mma_sync.h), which is why the pair exists:
//
//   A, row-major [16][16] tile sA:        ldmatrix_x4 with lane address &sA[l % 16][(l / 16) * 8]
//   B, stored [K=16][N=8] (row-major K-by-N, "row"):
//                                          ldmatrix_x2_trans with lane address &sB[l % 16][0]
//   B, stored [N=8][K=16] (K contiguous, "col"):
//                                          ldmatrix_x2 with lane address &sB[l % 8][((l / 8) % 2) * 8]
#pragma once

#include <cstdint>

#include "croq/device/arch.h"

namespace croq {

// ldmatrix.sync.aligned.m8n8.x1.shared.b16 {r0}, [addr]: lanes 0..7 give row addresses.
CROQ_DEVICE void ldmatrix_x1(std::uint32_t& r0, std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ldmatrix.sync.aligned.m8n8.x2.shared.b16 {r0, r1}, [addr]: lanes 0..15 give row addresses.
CROQ_DEVICE void ldmatrix_x2(std::uint32_t& r0, std::uint32_t& r1, std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0..r3}, [addr]: all 32 lanes give row addresses.
CROQ_DEVICE void ldmatrix_x4(std::uint32_t& r0, std::uint32_t& r1, std::uint32_t& r2, std::uint32_t& r3,
                             std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16: as ldmatrix_x1, each matrix transposed.
CROQ_DEVICE void ldmatrix_x1_trans(std::uint32_t& r0, std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16: as ldmatrix_x2, each matrix transposed.
CROQ_DEVICE void ldmatrix_x2_trans(std::uint32_t& r0, std::uint32_t& r1, std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: as ldmatrix_x4, each matrix transposed.
CROQ_DEVICE void ldmatrix_x4_trans(std::uint32_t& r0, std::uint32_t& r1, std::uint32_t& r2, std::uint32_t& r3,
                                   std::uint32_t smem_addr) {
#if CROQ_SM80_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// Array forms, convenient for fragments declared as `uint32_t a[4]`.
CROQ_DEVICE void ldmatrix_x2(std::uint32_t (&r)[2], std::uint32_t smem_addr) {
  ldmatrix_x2(r[0], r[1], smem_addr);
}
CROQ_DEVICE void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t smem_addr) {
  ldmatrix_x4(r[0], r[1], r[2], r[3], smem_addr);
}
CROQ_DEVICE void ldmatrix_x2_trans(std::uint32_t (&r)[2], std::uint32_t smem_addr) {
  ldmatrix_x2_trans(r[0], r[1], smem_addr);
}
CROQ_DEVICE void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t smem_addr) {
  ldmatrix_x4_trans(r[0], r[1], r[2], r[3], smem_addr);
}

}  // namespace croq
