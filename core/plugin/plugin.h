/* plugin: loading experiments and running one point of them. Other folders
 * include only this header; the modules below are its parts. */
#ifndef RUNNER_PLUGIN_FACE_H
#define RUNNER_PLUGIN_FACE_H

#include "exit_guard.h"
#include "grid.h"
#include "host.h"
#include "isolate.h"
#include "param.h"
#include "plugin_loader.h"

#endif
