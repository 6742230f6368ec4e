// `--arch=native`: the architecture of the GPU in this machine, as nvcc's
// `-arch=native` and Croqtile's `-arch=native` pick it.
#pragma once

#include <string>
#include <variant>

#include "target/Target.h"

namespace croqc::driver {

/// What `--arch=native` found: a GPU and its row of the target table.
struct NativeGpu {
  target::TargetId arch;
  std::string name;           // "NVIDIA H200"
  std::string computeCap;     // "9.0"
};

/// Why `--arch=native` names no target: `reason` completes "`--arch=native`
/// names the GPU of this machine, but ..."; a GPU that was found but is not a
/// croqc target has its name and compute capability.
struct NoNativeGpu {
  std::string reason;
  std::string name, computeCap;
};

/// Asks `nvidia-smi` (or the program `$NVIDIA_SMI` names) for the compute
/// capability of the first GPU. Hopper (9.0) is sm_90a, where warpgroups,
/// WGMMA and TMA exist; every other capability maps to its `sm_XY` row.
std::variant<NativeGpu, NoNativeGpu> probeNativeGpu();

}  // namespace croqc::driver
