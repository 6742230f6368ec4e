// cuda_runtime.h for croqc --target=cpu: the CPU emulation runtime (croq/cpu/runtime.h).
#pragma once

#include "croq/cpu/runtime.h"
