// choreo.h: the runtime header under the name the Croqtile tutorial uses.
#pragma once

#include "croq/croq.h"
