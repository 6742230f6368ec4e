// seed_hgemm_naive.h: the hand-written baseline from the seed document
// (spec/seeds/hgemm_mma_m16n8k16_naive_kernel.md): one warp per 16x8 tile of
// C, ldmatrix + mma.sync m16n8k16, f16 accumulation.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

// C[M][N] = A[M][K] * B[K][N], all row-major f16 in device memory. Requires
// M % 16 == 0, N % 8 == 0, K % 16 == 0 and 16-byte-aligned pointers (the
// seed kernel has no tail handling); returns cudaErrorInvalidValue otherwise,
// else the launch status. Asynchronous on `stream`.
cudaError_t launch_seed_hgemm(const __half* A, const __half* B, __half* C, int M, int N, int K,
                              cudaStream_t stream = nullptr);
