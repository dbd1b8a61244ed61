/* cli_pareto: `runner pareto SWEEP --min COL --max COL`. */
#include "base/exit_status.h"
#include "cli.h"

int cli_pareto(const options_parsed *a)
{
    (void)a;
    return EXIT_USAGE;
}
