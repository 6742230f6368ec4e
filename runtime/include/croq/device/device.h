// croq/device/device.h: every device-side wrapper of the runtime.
//
//   arch.h       feature macros (CROQ_SM80/SM90/SM90A_ENABLED), cvta_shared()
//   ldmatrix.h   ldmatrix_x{1,2,4}[_trans]
//   mma_sync.h   croq::mma: mma.sync m16n8k16 (f16/bf16 -> f16/f32) and fragment layouts
//   cp_async.h   cp_async_cg_16 (zero-fill), cp_async_ca<N>, commit / wait_group / wait_all
//   swizzle.h    swizzle_mode and swizzle_offset (32/64/128B XOR swizzles)
//   wgmma.h      croq::wgmma: descriptors, fence / commit / wait, mma_ss / mma_rs (sm_90a)
//   mbarrier.h   croq::mbarrier: init, arrive, arrive_expect_tx, try_wait / wait_parity, inval
//   tma.h        croq::tma: bulk tensor loads / stores, tensor-map construction (host)
//   stmatrix.h   stmatrix_x{1,2,4}[_trans] (sm_90)
//   fence.h      proxy fences, mbarrier-init fence, named barriers
//   warp.h       lane_id, elect_one_sync, cuda::setreg_inc / setreg_dec (setmaxnreg)
#pragma once

#include "croq/device/arch.h"
#include "croq/device/cp_async.h"
#include "croq/device/event.h"
#include "croq/device/fence.h"
#include "croq/device/ldmatrix.h"
#include "croq/device/mbarrier.h"
#include "croq/device/mma_sync.h"
#include "croq/device/mma_tile.h"
#include "croq/device/stmatrix.h"
#include "croq/device/swizzle.h"
#include "croq/device/tile_copy.h"
#include "croq/device/tma.h"
#include "croq/device/warp.h"
#include "croq/device/wgmma.h"
#include "croq/device/wgmma_tile.h"
