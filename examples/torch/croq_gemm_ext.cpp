// A PyTorch extension over a croqc library: `croq_gemm.hgemm(a, b)` is
// a @ b.T for f16 CUDA tensors a [M, K] and b [N, K], computed by the
// `hgemm_f32acc` kernel of examples/sm86/hgemm_multiwarp_f32acc.co through
// the `extern "C"` entry that `croqc --lib` generates (run_gemm.py builds
// both). Only the entries of the generated header are used
// (CROQ_C_ENTRIES_ONLY), so the extension needs no croq runtime headers.
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

#define CROQ_C_ENTRIES_ONLY
#include "hgemm.h"

namespace {

torch::Tensor hgemm(const torch::Tensor& a, const torch::Tensor& b) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda(), "hgemm: a and b must be CUDA tensors");
  TORCH_CHECK(a.scalar_type() == torch::kHalf && b.scalar_type() == torch::kHalf, "hgemm: a and b must be float16");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(1), "hgemm: a is [M, K] and b is [N, K]");
  TORCH_CHECK(a.get_device() == b.get_device(), "hgemm: a and b must be on the same device");
  // The kernel reads row-major tensors without strides.
  torch::Tensor lhs = a.contiguous();
  torch::Tensor rhs = b.contiguous();
  const int m = static_cast<int>(lhs.size(0));
  const int k = static_cast<int>(lhs.size(1));
  const int n = static_cast<int>(rhs.size(0));
  torch::Tensor out = torch::empty({m, n}, lhs.options());
  // The entry runs after the work queued on PyTorch's current stream and
  // returns when the product is complete.
  croq_hgemm_f32acc(lhs.data_ptr(), rhs.data_ptr(), out.data_ptr(), m, k, n,
                    at::cuda::getCurrentCUDAStream(lhs.get_device()).stream());
  return out;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
  module.def("hgemm", &hgemm, "a @ b.T for float16 CUDA tensors a [M, K], b [N, K] (croqc hgemm_f32acc)");
}
