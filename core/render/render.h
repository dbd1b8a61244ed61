/* render: what a person reads: tables and rows in every output format,
 * plots, the HTML report, diffs of two sweeps. */
#ifndef RUNNER_RENDER_FACE_H
#define RUNNER_RENDER_FACE_H

#include "diff.h"
#include "json_text.h"
#include "output.h"
#include "plot.h"
#include "plot_fit.h"
#include "plot_load.h"
#include "machine_note.h"
#include "plot_reduce.h"
#include "record.h"
#include "report.h"
#include "section_columns.h"
#include "section_view.h"
#include "table_facts.h"

#endif
