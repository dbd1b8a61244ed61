/* notify: what leaves runner when a sweep ends: the summary and the webhook
 * that delivers it (the only folder that uses libcurl). */
#ifndef RUNNER_NOTIFY_FACE_H
#define RUNNER_NOTIFY_FACE_H

#include "summary.h"
#include "webhook.h"

#endif
