// bench/cublaslt_fp8.h: cuBLASLt's FP8 GEMM as the FP8 benchmarks call it
// (included by bench/gemm_fp8_sm90.co and gemm_sp_sm90.co).
//   LT_CHECK(expr)            exits with the status when a cuBLASLt call fails
//   gemm_bench::LtFp8Gemm     C [M, N] = A [M, K] B [N, K]^T, e4m3 in, f16
//                             out, f32 compute, optionally FAST_ACCUM; the
//                             heuristic's first algorithm, a 32 MB workspace
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
// op N), the "TN" layout that cuBLASLt's FP8 kernels take.
class LtFp8Gemm {
 public:
  LtFp8Gemm(cublasLtHandle_t lt, int M, int N, int K, bool fast_accum) : lt_(lt) {
    LT_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LT_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    const std::int8_t fast = fast_accum ? 1 : 0;
    LT_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    LT_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, K, N, K));
    LT_CHECK(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, K, M, K));
    LT_CHECK(cublasLtMatrixLayoutCreate(&c_, CUDA_R_16F, N, M, N));
    cublasLtMatmulPreference_t pref = nullptr;
    LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kLtWorkspaceBytes;
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    int found = 0;
    LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt_, op_, a_, b_, c_, c_, pref, 1, &algo_, &found));
    LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt has no FP8 algorithm for %d x %d x %d\n", M, N, K);
      std::exit(1);
    }
  }
  ~LtFp8Gemm() {
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatmulDescDestroy(op_);
  }
  LtFp8Gemm(const LtFp8Gemm&) = delete;
  LtFp8Gemm& operator=(const LtFp8Gemm&) = delete;

  cudaError_t run(const croq::f8_e4m3* a, const croq::f8_e4m3* b, croq::f16* c, void* workspace) const {
    const float alpha = 1.0f, beta = 0.0f;
    LT_CHECK(cublasLtMatmul(lt_, op_, &alpha, b, a_, a, b_, &beta, c, c_, c, c_, &algo_.algo, workspace,
                            kLtWorkspaceBytes, nullptr));
    return cudaSuccess;
  }

 private:
  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
};

}  // namespace gemm_bench
