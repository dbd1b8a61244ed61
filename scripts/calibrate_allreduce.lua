-- Calibrating the comm plugin's alpha-beta model on this machine
-- (docs/science.md, "Calibrating alpha and beta"). apps/allreduce_lat times
-- MPI_Allreduce under mpirun for each message size, with Open MPI's ring and
-- recursive doubling forced in turn (coll_tuned_allreduce_algorithm 4 and 3);
-- every timed sample is a row. Then, in two steps:
--
--   1. runner sweep scripts/calibrate_allreduce.lua --name calib
--      runner fit calib --x bytes --y time_s --model alpha-beta --by algorithm
--   2. runner sweep scripts/calibrate_allreduce.lua --reuse \
--        --set ring_alpha=A --set ring_beta=B --set rd_alpha=A --set rd_beta=B
--
-- Step 2 reuses the measured points (--reuse), turns the two fitted lines
-- into the comm plugin's latency, bandwidth and reduction rate, asks the
-- plugin where ring starts to beat recursive doubling, and sets that beside
-- the crossover the measurements show.
--
-- Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT=1 and
-- OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment (tests/e2e/test_mpi.sh).
local report = require "report"

local opt = options {
  ranks      = { default = 2, doc = "MPI ranks k (mpirun -np); a power of two" },
  bytes      = { default = { 8, 64, 512, 4096, 32768, 131072, 524288, 2097152 },
                 doc = "message sizes per rank, multiples of 8" },
  repeats    = { default = 10, doc = "timed samples per size and algorithm (rows)" },
  iterations = { default = 50, doc = "allreduces averaged in one sample" },
  ring_alpha = { default = 0.0, doc = "step 2: the alpha-beta fit of ring: alpha, s" },
  ring_beta  = { default = 0.0, doc = "step 2: the alpha-beta fit of ring: beta, s/bytes" },
  rd_alpha   = { default = 0.0, doc = "step 2: the fit of recursive doubling: alpha, s" },
  rd_beta    = { default = 0.0, doc = "step 2: the fit of recursive doubling: beta, s/bytes" },
  program    = { default = runner.libexec .. "/allreduce_lat",
                 doc = "what mpirun starts: the allreduce_lat runner ships, or another path" },
}

command "allreduce_lat" {
  argv = { "mpirun", "-np", "{ranks}", "--oversubscribe",
           "--mca", "coll_tuned_use_dynamic_rules", "1",
           "--mca", "coll_tuned_allreduce_algorithm", "{algorithm_id}",
           opt.program, "--bytes", "{bytes}", "--repeats", "{samples}",
           "--iterations", "{iterations}" },
  params = {
    ranks        = { type = "integer", unit = "processes", min = 1, max = 64, default = 2,
                     doc = "MPI ranks (mpirun -np)" },
    algorithm_id = { type = "integer", min = 0, max = 6, default = 0,
                     doc = "Open MPI's coll_tuned_allreduce_algorithm: 3 recursive doubling, 4 ring" },
    bytes        = { type = "integer", unit = "bytes", min = 8, max = 1073741824, default = 8,
                     doc = "message size per rank" },
    samples      = { type = "integer", unit = "rows", min = 1, max = 100000, default = 10,
                     doc = "timed samples, one row each" },
    iterations   = { type = "integer", min = 1, max = 100000000, default = 50,
                     doc = "allreduces averaged in one sample" },
  },
  columns = {
    { name = "algorithm", type = "text", doc = "the algorithm the program ran (from the MCA variables)" },
    { name = "repeat", type = "integer", doc = "sample number, 1, 2, ..." },
    { name = "time_s", type = "real", unit = "s", doc = "one allreduce, mean of the sample's iterations, slowest rank" },
    { name = "check", type = "real", doc = "the first element of the sum (ranks (ranks + 1) / 2)" },
  },
  output = "jsonl",
  timeout = 300,
  jobs = 1, -- timed: one mpirun at a time, whatever --jobs says
}

local measured = sweep("allreduce_lat", {
  ranks = opt.ranks, algorithm_id = { 3, 4 }, bytes = opt.bytes,
  samples = opt.repeats, iterations = opt.iterations,
}, { title = "MPI_Allreduce time against message size, ring and recursive doubling",
     columns = { "algorithm", "bytes", "repeat", "time_s" } })

if runner.shard then return printf("%s\n", runner.shard.note) end

-- The median of each size's samples, per algorithm: on a shared machine a
-- few samples wait for a core, and the mean follows them.
local function median_time(algorithm, bytes)
  local times = {}
  for _, row in ipairs(measured) do
    if row.algorithm == algorithm and row.bytes == bytes then times[#times + 1] = row.time_s end
  end
  table.sort(times)
  local n = #times
  if n == 0 then return nil end -- every sample of this size failed
  return n % 2 == 1 and times[(n + 1) // 2] or (times[n // 2] + times[n // 2 + 1]) / 2
end

printf("\nMeasured on %d ranks (median of %d samples, each %d allreduces):\n", opt.ranks,
       opt.repeats, opt.iterations)
printf("%10s %14s %14s %8s\n", "bytes", "ring_s", "rd_s", "faster")
local crossover
for i, bytes in ipairs(opt.bytes) do
  local ring, rd = median_time("ring", bytes), median_time("recursive_doubling", bytes)
  if ring and rd then
    printf("%10d %14.4g %14.4g %8s\n", bytes, ring, rd, ring < rd and "ring" or "rd")
    if ring < rd then crossover = crossover or bytes else crossover = nil end
  else
    printf("%10d %14s %14s %8s\n", bytes, ring and string.format("%.4g", ring) or "failed",
           rd and string.format("%.4g", rd) or "failed", "?")
  end
end
local measured_text = crossover and string.format("ring faster from %d bytes on", crossover)
  or string.format("ring not faster for the largest sizes (up to %d bytes)", opt.bytes[#opt.bytes])
printf("measured crossover: %s\n", measured_text)

if opt.ring_beta == 0 or opt.rd_beta == 0 then
  return printf("\nNext: fit alpha and beta of each algorithm, then run step 2 (see the top of\n"
                .. "this script):\n  runner fit calibrate_allreduce.lua --x bytes --y time_s "
                .. "--model alpha-beta --by algorithm\n")
end

-- Ring on k ranks: 2(k-1) alpha + n (k-1)/k (2 beta + gamma); recursive
-- doubling: lg k alpha + n lg k (beta + gamma) (docs/science.md). Two fitted
-- lines give alpha, beta and gamma.
local k = opt.ranks
local lg = math.log(k, 2)
local share = (k - 1) / k
local alpha = opt.rd_alpha / lg
local beta = opt.ring_beta / share - opt.rd_beta / lg
local gamma = opt.rd_beta / lg - beta
printf("\nFrom the fits: alpha %.4g s (ring's intercept says %.4g s), beta %.4g s/byte, "
       .. "gamma %.4g s/byte\n", alpha, opt.ring_alpha / (2 * (k - 1)), beta, gamma)
local lines = (opt.ring_alpha - opt.rd_alpha) / (opt.rd_beta - opt.ring_beta)
printf("the fitted lines cross at %.4g bytes\n", lines)
if alpha < 0 or beta <= 0 or gamma <= 0 then
  return printf("alpha < 0, beta <= 0 or gamma <= 0: the fits do not describe a network the "
                .. "comm model can take (docs/science.md)\n")
end
local model = sweep("comm", {
  workers = k, schemes = "all", latency_s = alpha, bandwidth_bytes_per_s = 1 / beta,
  reduce_bytes_per_s = 1 / gamma, model_params = 1, bytes_per_param = 8,
}, { title = "comm model with the calibrated alpha, beta, gamma", print = false })
local rd = report.find(model, { scheme = "recursive_doubling" })
printf("comm predicts: ring faster from %.4g bytes on (recursive_doubling's ring_crossover_bytes)\n",
       rd.ring_crossover_bytes)
printf("measured:      %s\n", measured_text)
