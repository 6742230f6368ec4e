// croq/croq.h: the runtime header that generated code and `.co` host code
// include. The standard headers Croqtile programs rely on (croq/std.h) and
// the host API (croq/host.h, croq/types.h, croq/timing.h, croq/verify.h,
// croq/sparse.h)
// always; the device wrappers
// (croq/device/device.h) when compiled by nvcc, or their CPU emulation
// (croq/cpu/device.h, croq/cpu/wgmma.h) when built for `--target=cpu`
// (croq/cpu/cuda/ first on the include path). Namespace `croq`, also
// reachable as `choreo`.
#pragma once

#include "croq/std.h"

#include "croq/host.h"
#include "croq/scalar.h"
#include "croq/sparse.h"
#include "croq/timing.h"
#include "croq/types.h"
#include "croq/verify.h"

#if defined(__CUDACC__)
#include "croq/device/device.h"
#elif defined(CROQ_CPU_RUNTIME)
#include "croq/cpu/device.h"
#include "croq/cpu/wgmma.h"
#endif
#if defined(__CUDACC__) || defined(CROQ_CPU_RUNTIME)
#include "croq/builtins.h"
#endif
