// bench/cublaslt_fp8.h: cuBLASLt's FP8 GEMM as the FP8 benchmarks call it
// (included by bench/gemm_fp8_sm90.co and gemm_sp_sm90.co).
//   LT_CHECK(expr)            exits with the status when a cuBLASLt call fails
//   gemm_bench::LtFp8Gemm     C [M, N] = A [M, K] B [N, K]^T, e4m3 in, f16
//                             out, f32 compute, optionally FAST_ACCUM; the
//                             heuristic's first algorithm, a 32 MB workspace
//   gemm_bench::LtFp8BlockScaledGemm  the same product with DeepSeek-style
//                             block scales (cuBLASLt 12.9 on sm_90): one f32
//                             scale per row of A and 128-wide K block, one per
//                             128 x 128 block of B; available() is false where
//                             this cuBLASLt has no such algorithm
#pragma once

#include "croq/croq.h"

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define LT_CHECK(expr)                                                                          \
  do {                                                                                          \
    cublasStatus_t status_ = (expr);                                                            \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "%s:%d: cuBLASLt error %d in %s\n", __FILE__, __LINE__, (int)status_, #expr); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace gemm_bench {

inline constexpr std::size_t kLtWorkspaceBytes = 32u << 20;

// cuBLASLt's FP8 GEMM on row-major A [M, K], B [N, K], C [M, N]: column-major,
// C^T [N, M] = B [N, K] (read as K x N, op T) times A^T (A read as K x M,
// op N), the "TN" layout that cuBLASLt's FP8 kernels take. The operation
// descriptor (TN, f32 compute) is made here; the derived classes set their
// attributes on it and then plan().
class LtFp8Product {
 public:
  LtFp8Product(const LtFp8Product&) = delete;
  LtFp8Product& operator=(const LtFp8Product&) = delete;

  cudaError_t run(const croq::f8_e4m3* a, const croq::f8_e4m3* b, croq::f16* c, void* workspace) const {
    LT_CHECK(try_run(a, b, c, workspace));
    return cudaSuccess;
  }
  // The same, returning cuBLASLt's status instead of exiting on an error.
  cublasStatus_t try_run(const croq::f8_e4m3* a, const croq::f8_e4m3* b, croq::f16* c, void* workspace) const {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasLtMatmul(lt_, op_, &alpha, b, a_, a, b_, &beta, c, c_, c, c_, &algo_.algo, workspace,
                          kLtWorkspaceBytes, nullptr);
  }

 protected:
  explicit LtFp8Product(cublasLtHandle_t lt) : lt_(lt) {
    LT_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LT_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  }
  ~LtFp8Product() {
    if (c_) cublasLtMatrixLayoutDestroy(c_);
    if (b_) cublasLtMatrixLayoutDestroy(b_);
    if (a_) cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatmulDescDestroy(op_);
  }
  // Sets an attribute of the operation; false when this cuBLASLt does not
  // know it or refuses the value.
  template <typename T>
  bool set(cublasLtMatmulDescAttributes_t attribute, const T& value) {
    return cublasLtMatmulDescSetAttribute(op_, attribute, &value, sizeof value) == CUBLAS_STATUS_SUCCESS;
  }
  // The operand layouts of M x N x K and the heuristic's first algorithm
  // within a 32 MB workspace; false when there is none.
  bool plan(int M, int N, int K) {
    LT_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, K, N, K));
    LT_CHECK(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, K, M, K));
    LT_CHECK(cublasLtMatrixLayoutCreate(&c_, CUDA_R_16F, N, M, N));
    cublasLtMatmulPreference_t pref = nullptr;
    LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kLtWorkspaceBytes;
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(lt_, op_, a_, b_, c_, c_, pref, 1, &algo_, &found);
    LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    return status == CUBLAS_STATUS_SUCCESS && found > 0;
  }

 private:
  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
};

// The plain FP8 product with unit per-tensor scales, optionally with
// CUBLASLT_MATMUL_DESC_FAST_ACCUM. Exits when cuBLASLt has no algorithm.
class LtFp8Gemm : public LtFp8Product {
 public:
  LtFp8Gemm(cublasLtHandle_t lt, int M, int N, int K, bool fast_accum) : LtFp8Product(lt) {
    if (!set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<std::int8_t>(fast_accum ? 1 : 0)) || !plan(M, N, K)) {
      std::fprintf(stderr, "cuBLASLt has no FP8 algorithm for %d x %d x %d\n", M, N, K);
      std::exit(1);
    }
  }
};

// The product with DeepSeek-style block scales: C = sum over K blocks kb of
// sa(m, kb) * sb(n / 128, kb) * (A B^T over kb's 128 columns). In cuBLASLt's
// column-major terms its A is our B, scaled per 128 x 128 block
// (CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F), and its B is our A, scaled
// per row and 128-wide K block (VEC128_32F); cuBLASLt 12.9 on sm_90. The
// scales are laid out as cuBLASLt reads them: A's row scales K-block-major,
// `a_scales[kb * M + m]`; B's block scales `b_scales[nb * kb_pitch + kb]`
// with kb_pitch = round_up(cdiv(K, 128), 4) (kb_pitch()). available() is
// false where this cuBLASLt has no such algorithm.
class LtFp8BlockScaledGemm : public LtFp8Product {
 public:
  LtFp8BlockScaledGemm(cublasLtHandle_t lt, int M, int N, int K, const float* a_scales, const float* b_scales)
      : LtFp8Product(lt) {
    available_ = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, std::int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F}) &&
                 set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, std::int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F}) &&
                 set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, b_scales) &&
                 set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, a_scales) && plan(M, N, K);
  }

  bool available() const { return available_; }
  static int kb_pitch(int K) { return ((K + 127) / 128 + 3) / 4 * 4; }

 private:
  bool available_ = false;
};

}  // namespace gemm_bench
