/* numeric: GSL's error handler off, once, for the whole process. */
#include "numeric.h"

#include <gsl/gsl_errno.h>
#include <pthread.h>

static pthread_once_t numeric_once = PTHREAD_ONCE_INIT;

static void numeric_handler_off(void) { gsl_set_error_handler_off(); }

void numeric_init(void) { pthread_once(&numeric_once, numeric_handler_off); }
