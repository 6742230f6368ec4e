// The KIR verifier: the invariants every module lowering makes must hold,
// checked after lowering so that a lowering bug is reported as one (an
// internal error naming the kernel, the statement and the rule) instead of
// reaching the emitter as CUDA that nvcc rejects or that runs wrongly.
//
// What it checks:
// - each statement has the operands its kind needs (a loop its bounds, a
//   store its buffer, index and value, an MMA its fragments of the right
//   roles, a TMA copy its tensor map and mbarrier);
// - tiles are consistent (one stride and at most one validity bound per
//   dimension, a buffer to point into);
// - every buffer a kernel uses is placed: a shared one is laid out in the
//   kernel's shared memory, aligned and inside it, and shares bytes with
//   another only when both may be reused and a CTA barrier separates their
//   lifetimes; a local one is declared before its first use;
// - asynchronous work is closed: an asynchronous WGMMA is followed by a
//   commit, mbarriers and events are initialised for at least one arrival;
// - host wrappers launch their own kernels and describe tensor maps with
//   positive boxes.
#pragma once

#include <string>
#include <vector>

namespace croqc::kir {

class Module;

/// The invariants `m` breaks, one message each ("kernel `k`: a store to
/// `x` has no index"); empty when it is well formed.
std::vector<std::string> verify(const Module& m);

}  // namespace croqc::kir
