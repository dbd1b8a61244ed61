/* cli: parses the command line and runs one command. Returns the process
 * exit status (exit_status.h, docs/cli.md). */
#ifndef RUNNER_CLI_H
#define RUNNER_CLI_H

int cli_main(int argc, char **argv);

#endif
