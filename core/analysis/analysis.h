/* analysis: answers computed from stored rows — statistics on repeats,
 * fits with uncertainty, trade-off fronts (docs/analysis.md). The only
 * folder that uses GNU GSL and R's math library; other folders include only this header, which
 * gathers the headers of its modules. */
#ifndef RUNNER_ANALYSIS_FACE_H
#define RUNNER_ANALYSIS_FACE_H

#include "analysis/changepoint.h"
#include "analysis/history.h"
#include "analysis/fit.h"
#include "analysis/numeric.h"
#include "analysis/pareto.h"
#include "analysis/robust.h"
#include "analysis/sensitivity.h"
#include "analysis/stats.h"

#endif
