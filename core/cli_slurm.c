#include "cli.h"
int cli_slurm(const options_parsed *a){(void)a;return 0;}
