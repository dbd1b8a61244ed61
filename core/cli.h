/* cli: parses the command line and runs one command. Returns the process
 * exit status: 0 ok, 1 some points failed, 2 bad input or usage,
 * 3 a webhook summary not delivered, 130 interrupted (docs/cli.md). */
#ifndef RUNNER_CLI_H
#define RUNNER_CLI_H

#define EXIT_OK 0
#define EXIT_POINTS_FAILED 1
#define EXIT_USAGE 2
#define EXIT_NOT_DELIVERED 3   /* --webhook-strict: the summary stays in the outbox */
#define EXIT_INTERRUPTED 130

int cli_main(int argc, char **argv);

#endif
