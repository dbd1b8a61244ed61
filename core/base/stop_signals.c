/* stop_signals: the one list of signals runner treats as "stop". */
#include "stop_signals.h"

const int stop_signals_list[STOP_SIGNALS_COUNT] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGXCPU };

void stop_signals_fill(sigset_t *set)
{
    sigemptyset(set);
    for (int i = 0; i < STOP_SIGNALS_COUNT; i++)
        sigaddset(set, stop_signals_list[i]);
}

const char *stop_signals_name(int signo)
{
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGXCPU: return "SIGXCPU";
    default: return "a signal";
    }
}
