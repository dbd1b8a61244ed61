-- The walk-through's speedup model against a real program (docs/science.md,
-- "The speedup, measured"). dp_logreg (apps/dp_logreg) runs under
-- `mpirun -np k --oversubscribe` as a command experiment: k ranks each
-- compute the logistic-regression gradient of their shard (base/k CPU
-- seconds), sleep U(0, J), and add the gradients with MPI_Allreduce. The
-- speedup plugin predicts the same rounds: base/k + J k/(k+1). Both tables
-- land in one sweep, so the comparison is also one SQL join.
--
-- Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT=1 and
-- OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment (tests/e2e/test_mpi.sh).
local report = require "report"

local opt = options {
  base    = { default = 0.4, doc = "CPU seconds of one round's gradient on one rank alone" },
  jitters = { default = { 0.0, 0.2, 0.4 }, doc = "J: each rank sleeps U(0, J) s per round" },
  workers = { default = { 1, 2, 4 }, doc = "MPI ranks k; must include 1 (the reference)" },
  rounds  = { default = 5, doc = "rounds per run, averaged" },
  program = { default = runner.libexec .. "/dp_logreg",
              doc = "what mpirun starts: the dp_logreg runner ships, or another path" },
  timeout = { default = 300, doc = "seconds one run may take before it is killed" },
}

command "dp_logreg" {
  argv = { "mpirun", "-np", "{workers}", "--oversubscribe", opt.program,
           "--base", "{base}", "--jitter", "{jitter}", "--rounds", "{rounds}",
           "--seed", "{data_seed}" },
  params = {
    workers   = { type = "integer", unit = "workers", min = 1, max = 64, default = 1,
                  doc = "MPI ranks k (mpirun -np)" },
    base      = { type = "real", unit = "s", min = 0, default = 0.4,
                  doc = "CPU seconds of one round's gradient on one rank alone" },
    jitter    = { type = "real", unit = "s", min = 0, default = 0,
                  doc = "largest injected delay per rank and round, U(0, jitter)" },
    rounds    = { type = "integer", unit = "rounds", min = 1, max = 100000, default = 5,
                  doc = "rounds per run" },
    data_seed = { type = "integer", min = 0, max = 1000000, default = 1,
                  doc = "seeds the data and the delays: the same for every k" },
  },
  columns = {
    { name = "ranks", type = "integer", unit = "workers", doc = "MPI_Comm_size, as the program saw it" },
    { name = "rounds_done", type = "integer", unit = "rounds", doc = "rounds averaged" },
    { name = "base_s", type = "real", unit = "s", doc = "--base as the program read it" },
    { name = "jitter_s", type = "real", unit = "s", doc = "--jitter as the program read it" },
    { name = "passes", type = "integer", unit = "passes", doc = "gradient passes per round (calibrated)" },
    { name = "pass_s", type = "real", unit = "s", doc = "CPU seconds of one pass over the whole dataset" },
    { name = "calibrate_s", type = "real", unit = "s", doc = "wall seconds of the calibration" },
    { name = "round_s", type = "real", unit = "s", doc = "mean round, slowest rank, wall clock" },
    { name = "round_sd_s", type = "real", unit = "s", doc = "standard deviation of the rounds" },
    { name = "round_min_s", type = "real", unit = "s", doc = "shortest round" },
    { name = "round_max_s", type = "real", unit = "s", doc = "longest round" },
    { name = "compute_s", type = "real", unit = "s", doc = "mean of the slowest rank's arithmetic, wall clock" },
    { name = "compute_cpu_s", type = "real", unit = "s", doc = "mean of the largest CPU time of a rank's arithmetic" },
    { name = "wait_s", type = "real", unit = "s", doc = "round_s - compute_s: delays, waiting, allreduce" },
    { name = "delay_s", type = "real", unit = "s", doc = "mean of the largest injected delay" },
    { name = "model_round_s", type = "real", unit = "s", doc = "passes pass_s / k + J k/(k+1)" },
    { name = "grad_norm", type = "real", doc = "|mean gradient| after the last round" },
  },
  output = "jsonl",
  timeout = opt.timeout,
  -- One run at a time whatever --jobs says: two would share the cores the
  -- rounds are timed on, and two mpiruns starting at once can collide
  -- creating Open MPI's session directory.
  jobs = 1,
}

local grid = { base = opt.base, jitter = opt.jitters, workers = opt.workers }
local measured = sweep("dp_logreg", {
  base = opt.base, jitter = opt.jitters, workers = opt.workers, rounds = opt.rounds,
}, { title = "dp_logreg under mpirun: measured rounds",
     columns = { "jitter", "workers", "ranks", "round_s", "compute_s", "compute_cpu_s",
                 "wait_s", "delay_s", "model_round_s" } })
local model = sweep("speedup", grid, { title = "speedup model, same base and J", print = false })

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local function gap(measured_value, predicted)
  return report.percent((measured_value - predicted) / predicted)
end

printf("\nMeasured beside predicted: base %.3g s, %d rounds per run; S = T1 / T_k\n",
       opt.base, opt.rounds)
printf("%6s %3s %10s %10s %8s %8s %8s %9s %9s\n", "J_s", "k", "round_s", "model_s",
       "S_meas", "S_model", "gap", "cpu_x_k", "launch_s")
for _, jitter in ipairs(opt.jitters) do
  local one = report.find(measured, { jitter = jitter, workers = 1 })
  for _, k in ipairs(opt.workers) do
    local row = report.find(measured, { jitter = jitter, workers = k })
    local predicted = report.find(model, { jitter = jitter, workers = k })
    local speedup = one.round_s / row.round_s
    -- What the run cost outside its rounds: mpirun starting and stopping
    -- k processes, MPI_Init, the calibration (wall_s: the command's own).
    local launch = row.wall_s and string.format("%9.3f",
        row.wall_s - row.rounds_done * row.round_s - row.calibrate_s) or "        -"
    printf("%6.3g %3d %10.4f %10.4f %8.2f %8.2f %8s %9.2f %s\n", jitter, k, row.round_s,
           predicted.round_s, speedup, predicted.speedup, gap(speedup, predicted.speedup),
           row.compute_cpu_s * k / opt.base, launch)
  end
end
printf("(cpu_x_k: a rank's arithmetic in CPU seconds times k, over base: 1 when the work\n"
       .. " divides exactly; launch_s: the run's wall time outside its rounds and calibration)\n")
for _, jitter in ipairs(opt.jitters) do
  local _, top = report.span(opt.workers)
  local at = report.find(model, { jitter = jitter, workers = top })
  local one = report.find(measured, { jitter = jitter, workers = 1 })
  local row = report.find(measured, { jitter = jitter, workers = top })
  printf("J = %.3g s: %d ranks measured %.2fx, model %.2fx (ceiling T1/J %s)\n", jitter, top,
         one.round_s / row.round_s, at.speedup,
         jitter > 0 and string.format("%.2fx", at.ceiling) or "none")
end

-- The model fitted to the measured rounds: base and J with 95 % intervals
-- beside the injected ones, and the ceiling T1/J the measurements imply
-- (docs/science.md, "The model fitted to the measurements").
local fits, why = fit{ rows = measured, x = "workers", y = "round_s", model = "walkthrough",
                      by = "jitter" }
if not fits then
  printf("\nno fit of the model to the measured rounds: %s\n", why)
else
  local function ci(q, unit)
    return string.format("%.3g%s [%.3g, %.3g]", q.value, unit, q.ci_low, q.ci_high)
  end
  printf("\nThe model fitted to the measured rounds, 95%% intervals (%d rounds per row):\n",
         opt.rounds)
  for _, f in ipairs(fits) do
    printf("J = %.3g s injected, base %.3g s: fitted J %s, base %s, ceiling T1/J %s\n",
           f.by, opt.base, ci(f.J, " s"), ci(f.base, " s"), ci(f.ceiling, "x"))
  end
end
