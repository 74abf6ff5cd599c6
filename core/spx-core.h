/* spx-core.h: the core library in one include */
#pragma once

#include "spx-mask.h"
#include "spx-mask-gen.h"
#include "spx-mask-io.h"
#include "spx-save.h"
#include "spx-scenario.h"
#include "spx-util.h"
