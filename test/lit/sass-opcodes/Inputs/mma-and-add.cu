// Kernels with known SASS for the sass-opcodes tests: `one_mma` issues one
// mma.sync (one HMMA on sm_86 and sm_90a), `add` one integer add (IADD3) and
// no MMA, and `add_twice` calls `twice`, which is not inlined: in a cubin
// made with -rdc=true it is a function (a `.text` section) of its own.

__device__ __noinline__ int twice(int x) { return 2 * x; }

extern "C" __global__ void one_mma(const unsigned* a, const unsigned* b, float* d) {
  const unsigned lane = threadIdx.x;
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[4 * lane]), "r"(a[4 * lane + 1]), "r"(a[4 * lane + 2]), "r"(a[4 * lane + 3]),
        "r"(b[2 * lane]), "r"(b[2 * lane + 1]));
  d[4 * lane] = d0;
  d[4 * lane + 1] = d1;
  d[4 * lane + 2] = d2;
  d[4 * lane + 3] = d3;
}

extern "C" __global__ void add(const int* a, const int* b, int* c) {
  c[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

extern "C" __global__ void add_twice(const int* a, int* c) { c[threadIdx.x] = twice(a[threadIdx.x]); }
