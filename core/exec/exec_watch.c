/* exec_watch: what runs beside a command point's runs, in the thread that
 * watches them (exec_spawn's poll loop): its progress lines
 * (exec_progress.c) and its process tree's samples (exec_sample.c). */
#include "exec_int.h"

void exec_watchers_begin(exec_watchers *w, exec_spawn_request *req, runner_point *point)
{
    exec_progress_begin(&w->progress, point);
    req->progress = &w->progress;
    exec_sample_begin(&w->sampler, point, point->sample_interval_s);
    req->sampler = point->sample_interval_s > 0 ? &w->sampler : NULL;
    if (req->sampler) /* the command's figures, never the watching thread's */
        exec_sample_end(&w->sampler);
}

void exec_watchers_run_end(exec_watchers *w, const exec_spawn_result *run)
{
    w->progress.line_no = 1; /* each run's stdout counts its own lines */
    if (w->sampler.interval_s > 0)
        exec_sample_run_end(&w->sampler, run->wall_s, run->user_s + run->sys_s, run->max_rss_kib,
                            run->read_bytes, run->written_bytes);
    if (w->sampler.interval_s > 0) /* kept up to date: a failed run ends the point */
        exec_sample_end(&w->sampler);
}
