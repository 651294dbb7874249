/*
 * autosize: the sizing core. No Slurm or Lua headers; pure C.
 */
#ifndef AUTOSIZE_H
#define AUTOSIZE_H

#include "autosize/error.h"
#include "autosize/parse.h"
#include "autosize/model.h"
#include "autosize/catalog.h"
#include "autosize/policy.h"
#include "autosize/plan.h"
#include "autosize/options.h"
#include "autosize/jobenv.h"
#include "autosize/launch.h"
#include "autosize/limits.h"
#include "autosize/decide.h"
#include "autosize/jobrecord.h"
#include "autosize/calibration.h"
#include "autosize/chain.h"
#include "autosize/published.h"
#include "autosize/spool.h"

#endif
