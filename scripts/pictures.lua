-- The walk-through's three pictures: speedup against workers for several
-- jitters (docs/science.md section 5), the share of a round spent waiting
-- (section 3), and the bytes one round moves per exchange scheme (section 2).
-- Each sweep is stored like any other; plot() draws it with gnuplot into
-- plots/ under the current directory (docs/plots.md).
local opt = options {
  format  = { default = "svg", doc = "picture format: svg or png" },
  jitters = { default = { 2.0, 1.0, 0.5 }, doc = "worst extra delay per round, s" },
}
if opt.format ~= "svg" and opt.format ~= "png" then
  error("--set format=" .. tostring(opt.format) .. ": expected svg or png", 0)
end
local workers = powers_of_two(1, 512)

local function picture(name)
  return "plots/" .. name .. "." .. opt.format
end

-- plot() returns the path, or nil and a message (gnuplot missing, file not
-- writable): say so and carry on, the rows are stored either way. Under
-- --shard the rows are this shard's only: draw them after the merge.
local function draw(rows, spec)
  if runner.shard then return end
  local path, err = plot(rows, spec)
  if path then
    printf("wrote %s\n", path)
  else
    printf("no picture: %s\n", err)
  end
end

-- 1. The ceiling: shrinking the worst delay buys more than adding cards.
local speedup = sweep("speedup", {
  base = 30, jitter = opt.jitters, workers = workers,
}, {
  title = "Speedup vs workers, per jitter (exact expected waits)",
  columns = { "jitter", "workers", "speedup", "efficiency" },
})
draw(speedup, {
  x = "workers", y = "speedup", by = "jitter", logx = true,
  units = { jitter = "s" }, ylabel = "speedup T1 / Tk",
  title = "Speedup vs workers: the ceiling is T1 / J, whatever k",
  output = picture("speedup"),
})

-- 2. Waiting for the slowest worker takes over the round.
local straggler = sweep("straggler", {
  base = 30, jitter = 2, workers = workers, trials = 4000,
}, {
  title = "Wait share vs workers (base 30 s, jitter 2 s)",
  columns = { "workers", "compute_s", "max_delay_s", "round_s", "wait_share" },
})
draw(straggler, {
  x = "workers", y = "wait_share", logx = true,
  units = { wait_share = "fraction" },
  title = "A synchronous round waits for the slowest worker",
  output = picture("wait_share"),
})

-- 3. The parameter server's traffic grows with k; the ring's barely moves.
local comm = sweep("comm", {
  model_params = 1000000, bytes_per_param = 4, workers = { 2, 4, 8, 16, 32, 64 },
}, {
  title = "Bytes per round vs workers, per scheme (1e6 float32 parameters)",
  columns = { "workers", "scheme", "counted_at", "bytes_per_round", "mib_per_round" },
})
draw(comm, {
  x = "workers", y = "bytes_per_round", by = "scheme", logx = true, logy = true,
  units = { bytes_per_round = "bytes" },
  title = "Bytes per round: parameter server (at the server) vs ring (per worker)",
  output = picture("bytes_per_round"),
})
if runner.shard then printf("%s\n", runner.shard.note) end
