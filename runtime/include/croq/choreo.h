// croq/choreo.h: the runtime header under the Croqtile name; same as croq/croq.h.
#pragma once

#include "croq/croq.h"
