/* runner's entry point: everything lives in cli.c. */
#include "cli/cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }
