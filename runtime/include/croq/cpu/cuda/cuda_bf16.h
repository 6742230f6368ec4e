// cuda_bf16.h for croqc --target=cpu: host definitions of the CUDA 16-bit and 8-bit
// floating-point types (croq/cpu/half.h).
#pragma once

#include "croq/cpu/half.h"
