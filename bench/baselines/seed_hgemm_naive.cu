// seed_hgemm_naive.cu: the naive mma.sync m16n8k16 HGEMM of the seed document
// (spec/seeds/hgemm_mma_m16n8k16_naive_kernel.md), rewritten as a benchmark
// baseline. It deliberately keeps the seed's structure and its limits:
//
//   - one block = one warp = one 16x8 tile of C; grid (N / 8, M / 16)
//   - per k16 step: A[16][16] and B[16][8] are copied global -> shared with
//     one 128-bit load per lane (all 32 lanes for A, 16 for B), then
//     ldmatrix.x4 reads the A fragment and ldmatrix.x2.trans the B fragment
//     (B is row-major K x N in memory but mma wants it "col"), and one
//     mma.sync.m16n8k16.row.col.f16.f16.f16.f16 accumulates in f16
//   - the f16 accumulator (2 registers per lane: rows lane/4 and lane/4 + 8,
//     columns 2*(lane%4) .. +1) goes through shared memory so that 16 lanes
//     can each write one full 16-byte row of the tile
// No double buffering, no tails, one warp per block: this is the floor the
// generated sm_86 code is compared against, not a fast kernel.
//
// It depends only on the CUDA headers (not on the croq runtime), so it stays
// an independent reference. Build with -DSEED_HGEMM_SELF_TEST for a main()
// that checks it against a CPU reference.
#include <cstdint>

#include "seed_hgemm_naive.h"

namespace {

constexpr int kTileM = 16;
constexpr int kTileN = 8;
constexpr int kTileK = 16;

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 b16 matrices; lanes 8q..8q+7 address the rows of matrix q.
__device__ __forceinline__ void load_matrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Two 8x8 b16 matrices, each delivered transposed; lanes 0..15 give the rows.
__device__ __forceinline__ void load_matrix_x2_transposed(std::uint32_t (&r)[2], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}

// acc[16x8] += a[16x16] * b[16x8], everything f16.
__device__ __forceinline__ void mma_16x8x16_f16(std::uint32_t (&acc)[2], const std::uint32_t (&a)[4],
                                                const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
      : "+r"(acc[0]), "+r"(acc[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void __launch_bounds__(32)
    seed_hgemm_naive_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                            __half* __restrict__ C, int N, int K) {
  __shared__ alignas(16) __half s_a[kTileM][kTileK];
  __shared__ alignas(16) __half s_b[kTileK][kTileN];
  __shared__ alignas(16) __half s_c[kTileM][kTileN];

  const int lane = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.y) * kTileM;  // first row of this C tile
  const int col0 = static_cast<int>(blockIdx.x) * kTileN;  // first column of this C tile

  // Copy assignment: lane -> A row lane/2, half (lane%2); lanes 0..15 -> B row lane.
  const int a_row = lane / 2;
  const int a_col = (lane % 2) * 8;

  std::uint32_t acc[2] = {0u, 0u};  // two packed f16 zeros each
  for (int k0 = 0; k0 < K; k0 += kTileK) {
    *reinterpret_cast<int4*>(&s_a[a_row][a_col]) =
        *reinterpret_cast<const int4*>(&A[static_cast<long long>(row0 + a_row) * K + k0 + a_col]);
    if (lane < kTileK)
      *reinterpret_cast<int4*>(&s_b[lane][0]) =
          *reinterpret_cast<const int4*>(&B[static_cast<long long>(k0 + lane) * N + col0]);
    __syncthreads();

    // A: lanes 0-15 address rows 0-15 at k 0, lanes 16-31 the same rows at
    // k 8, giving matrices (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15),
    // (8-15, 8-15) = the a0a1, a2a3, a4a5, a6a7 registers of the fragment.
    std::uint32_t a_frag[4];
    load_matrix_x4(a_frag, shared_address(&s_a[lane % 16][(lane / 16) * 8]));
    // B: rows k 0-7 and 8-15 of the K x N tile, transposed on the way in so
    // that lane l gets B[2(l%4) .. +1][l/4] (and +8 in k): the "col" fragment.
    std::uint32_t b_frag[2];
    load_matrix_x2_transposed(b_frag, shared_address(&s_b[lane % 16][0]));

    mma_16x8x16_f16(acc, a_frag, b_frag);
    __syncthreads();  // s_a / s_b are overwritten by the next step
  }

  // Accumulator layout: acc[0] = C[lane/4][2(lane%4) .. +1], acc[1] eight rows down.
  *reinterpret_cast<std::uint32_t*>(&s_c[lane / 4][(lane % 4) * 2]) = acc[0];
  *reinterpret_cast<std::uint32_t*>(&s_c[lane / 4 + 8][(lane % 4) * 2]) = acc[1];
  __syncthreads();
  if (lane < kTileM)
    *reinterpret_cast<int4*>(&C[static_cast<long long>(row0 + lane) * N + col0]) =
        *reinterpret_cast<const int4*>(&s_c[lane][0]);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t launch_seed_hgemm(const __half* A, const __half* B, __half* C, int M, int N, int K,
                              cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % kTileM != 0 || N % kTileN != 0 || K % kTileK != 0 ||
      M / kTileM > 65535 || !aligned16(A) || !aligned16(B) || !aligned16(C))
    return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(N / kTileN), static_cast<unsigned>(M / kTileM));
  seed_hgemm_naive_kernel<<<grid, 32, 0, stream>>>(A, B, C, N, K);
  return cudaGetLastError();
}

#ifdef SEED_HGEMM_SELF_TEST
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

// Checks the baseline on a 256 x 192 x 512 product against a double CPU
// reference; f16 accumulation over K = 512 of products in [-1, 1] stays
// within 0.25 + 2% here.
int main() {
  const int M = 256, N = 192, K = 512;
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__half> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N),
      c(static_cast<std::size_t>(M) * N);
  for (auto& x : a) x = __float2half(dist(gen));
  for (auto& x : b) x = __float2half(dist(gen));
  __half *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  cudaMalloc(&d_a, a.size() * sizeof(__half));
  cudaMalloc(&d_b, b.size() * sizeof(__half));
  cudaMalloc(&d_c, c.size() * sizeof(__half));
  cudaMemcpy(d_a, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemset(d_c, 0xFF, c.size() * sizeof(__half));
  cudaError_t status = launch_seed_hgemm(d_a, d_b, d_c, M, N, K);
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    std::printf("FAIL seed_hgemm_naive: %s\n", cudaGetErrorString(status));
    return 1;
  }
  cudaMemcpy(c.data(), d_c, c.size() * sizeof(__half), cudaMemcpyDeviceToHost);
  int bad = 0;
  double max_err = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.0;
      for (int k = 0; k < K; ++k)
        ref += static_cast<double>(__half2float(a[i * K + k])) * __half2float(b[k * N + j]);
      const double err = std::fabs(__half2float(c[i * N + j]) - ref);
      if (!(err <= 0.25 + 0.02 * std::fabs(ref))) ++bad;
      if (!(err <= max_err)) max_err = err;
    }
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  std::printf("%s seed_hgemm_naive %dx%dx%d max_err=%.3g (%d mismatches)\n", bad == 0 ? "PASS" : "FAIL", M, N,
              K, max_err, bad);
  return bad == 0 ? 0 : 1;
}
#endif
