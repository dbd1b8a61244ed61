-- The walk-through, sections 1 to 5: when one machine is not enough,
-- splitting the arithmetic of data-parallel training is free; what you pay
-- for is connecting the pieces. Each section's table is stored in full;
-- only the columns the argument needs are printed.
local report = require "report"

local opt = options {
  pictures = { default = false, doc = "also draw the walk-through's pictures into plots/ (needs gnuplot)" },
}

-- Under --shard the rows are this shard's only: the takeaways wait for the merge.
local whole = not runner.shard

local function takeaway(fmt, ...)
  printf("=> " .. fmt .. "\n\n", ...)
end

-- 1. equivalence: data parallelism is exact arithmetic.
local eq = sweep("equivalence", {
  samples = 10000, features = 20, shards = 8, split = {"uneven", "even"},
}, {
  title = "Equivalence: shard gradients combined vs the full-batch gradient",
  columns = {"split", "weighting", "max_abs_diff", "grad_max_abs", "rel_diff", "shard_min", "shard_max"},
})
if whole then
  local weighted = report.find(eq, { split = "uneven", weighting = "weighted" })
  local plain = report.find(eq, { split = "uneven", weighting = "plain" })
  takeaway("weighting shards by size reproduces the gradient to %.1e (|g| = %.3f); "
           .. "a plain average of uneven shards is off by %.1f%% of it",
           weighted.max_abs_diff, weighted.grad_max_abs, 100 * plain.rel_diff)
end

-- 2. comm: what one round of gradient exchange moves.
local comm = sweep("comm", {
  model_params = 1000000, bytes_per_param = 4, workers = {8, 64},
}, {
  title = "Communication per round: parameter server vs ring all-reduce (1e6 float32 parameters)",
  columns = {"workers", "scheme", "counted_at", "bytes_per_round", "mib_per_round"},
})
if whole then
  local ps64 = report.find(comm, { scheme = "ps", workers = 64 })
  local ring64 = report.find(comm, { scheme = "ring", workers = 64 })
  local ring8 = report.find(comm, { scheme = "ring", workers = 8 })
  takeaway("at 64 workers the server moves %s per round, each ring worker %s "
           .. "(%s at 8 workers): the ring barely grows with k",
           report.mib(ps64.bytes_per_round), report.mib(ring64.bytes_per_round),
           report.mib(ring8.bytes_per_round))
end

local big = sweep("comm", { model_params = 12000000000, workers = 8 }, {
  title = "A 12e9-parameter model on 8 workers",
  columns = {"scheme", "copy_bytes", "bytes_per_round", "gib_per_round"},
})
if whole then
  local big_ring = report.find(big, { scheme = "ring" })
  takeaway("one copy is %s (%s); a ring round moves %s (%s) per worker",
           report.gib(big_ring.copy_bytes), report.gb(big_ring.copy_bytes),
           report.gib(big_ring.bytes_per_round), report.gb(big_ring.bytes_per_round))
end

-- 3. straggler: a synchronous round waits for the slowest worker.
local st = sweep("straggler", {
  base = 30, jitter = 2, workers = {1, 8, 64, 512}, trials = 4000,
}, {
  title = "Stragglers: a synchronous round waits for the slowest worker",
  columns = {"workers", "compute_s", "max_delay_s", "max_delay_exact_s", "max_delay_stderr_s",
             "round_s", "wait_share"},
})
if whole then
  local st1 = report.find(st, { workers = 1 })
  local st512 = report.find(st, { workers = 512 })
  takeaway("waiting grows from %s of the round at 1 worker to %s at 512: "
           .. "the compute shrinks, the slowest delay does not",
           report.percent(st1.wait_share, 0), report.percent(st512.wait_share, 0))
end

-- 4. sharding: how much data moves when a node is added.
local sh = sweep("sharding", {
  keys = 20000, nodes = 8, vnodes = 120, hash = "xxh64",
}, {
  title = "Sharding: keys moved when node 9 joins, and ring balance",
  columns = {"hash_name", "moved_mod", "moved_mod_expected", "moved_ring", "moved_ideal",
             "load_max", "load_min", "load_ratio", "load_cv"},
})
if whole then
  local s = sh[1]
  takeaway("mod-N moves %s of the keys (theory %s); the ring moves %s (ideal %s); "
           .. "busiest/idlest node %d/%d = %.2f (hash %s)",
           report.percent(s.moved_mod), report.percent(s.moved_mod_expected),
           report.percent(s.moved_ring), report.percent(s.moved_ideal),
           s.load_max, s.load_min, s.load_ratio, s.hash_name)
end

-- 5. speedup: the ceiling that more workers cannot break.
local sp = sweep("speedup", {
  base = 30, jitter = 2, workers = {1, 2, 4, 8, 16, 64, 256, 512},
}, {
  title = "Speedup: T1 / Tk with exact expected waits",
  columns = {"workers", "wait_s", "round_s", "speedup", "efficiency", "karp_flatt"},
})
if whole then
  local last = report.find(sp, { workers = 512 })
  takeaway("ceiling T1/J = %.1fx (Amdahl approximation base/J = %.1fx); "
           .. "512 workers deliver %.1fx at %s efficiency",
           last.ceiling, last.ceiling_amdahl, last.speedup, report.percent(last.efficiency))
end

-- The walk-through's pictures, on request: runner sweep scripts/seed.lua --set pictures=true
if opt.pictures and whole then
  local function picture(rows, spec)
    local path, err = plot(rows, spec)
    printf("%s\n", path and ("picture: " .. path) or ("no picture: " .. err))
  end
  picture(sp, { x = "workers", y = "speedup", logx = true, output = "plots/speedup.svg" })
  picture(st, { x = "workers", y = "wait_share", logx = true, units = { wait_share = "fraction" },
                output = "plots/wait_share.svg" })
  picture(comm, { x = "workers", y = "bytes_per_round", by = "scheme", logy = true,
                  units = { bytes_per_round = "bytes" }, output = "plots/bytes_per_round.svg" })
end
if not whole then printf("%s\n", runner.shard.note) end
