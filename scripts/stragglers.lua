-- The tail of the delay law sets the wait; backup workers cut it.
-- (docs/science.md section 3, "Beyond".) At k = 64 workers every law below has
-- the same mean delay, yet the slowest of 64 delays differs by the law's
-- tail: bounded (uniform, E[max] -> 2 x mean), exponential (E[max] = mean
-- H_k, ~ ln k), log-normal and Pareto (E[max] ~ k^(1/alpha)). With b backup
-- workers the round waits only for the fastest k of k + b (Chen et al.
-- 2016): the heavier the tail, the more the b slowest cost, and the more
-- backups buy.
local report = require "report"

local opt = options {
  workers = { default = 64, doc = "workers k the round needs" },
  backups = { default = 2, doc = "backup workers b: the round waits for the fastest k of k + b" },
  mean    = { default = 1.0, unit = "s", doc = "mean delay of one worker, the same under every law" },
  sigma   = { default = 1.0, doc = "log-normal: sd of ln(delay)" },
  alpha   = { default = 2.5, doc = "Pareto tail index; > 1 for a finite mean" },
  base    = { default = 30.0, unit = "s", doc = "seconds one worker needs for a round alone" },
  trials  = { default = 4000, doc = "Monte Carlo rounds per law" },
}
assert(opt.alpha > 1, "alpha must exceed 1 for the Pareto law to have a mean")

local laws = { "uniform", "exponential", "lognormal", "pareto" }
local rows = sweep("straggler", {
  base = opt.base, workers = opt.workers, trials = opt.trials, backups = opt.backups,
  law = laws,
  -- Each law's own parameters, chosen so that its mean delay is opt.mean.
  jitter = 2 * opt.mean,
  mean_delay_s = opt.mean,
  lognormal_sigma = opt.sigma,
  pareto_alpha = opt.alpha,
  pareto_scale_s = opt.mean * (opt.alpha - 1) / opt.alpha,
}, {
  title = string.format("Stragglers at k = %d, mean delay %g s under every law: "
                        .. "the slowest of %d, and the %d-th fastest of %d",
                        opt.workers, opt.mean, opt.workers, opt.workers,
                        opt.workers + opt.backups),
  columns = { "law", "delay_mean_s", "max_delay_s", "max_delay_exact_s", "order_stat_s",
              "order_stat_exact_s", "order_stat_sample_stderr_s", "wait_share" },
})

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local backup_workers = opt.backups == 1 and "1 backup" or string.format("%d backups", opt.backups)

-- NaN (log-normal: no closed form) prints as "n/a".
local function seconds(x)
  if x ~= x then return "n/a" end
  return string.format("%.3f s", x)
end

for _, law in ipairs(laws) do
  local r = report.find(rows, { law = law })
  printf("%-11s slowest of %d waits %s (%.1fx the mean; exact %s); "
         .. "with %s %s (exact %s): %s less\n",
         law, opt.workers, seconds(r.max_delay_s), r.max_delay_s / r.delay_mean_s,
         seconds(r.max_delay_exact_s), backup_workers, seconds(r.order_stat_s),
         seconds(r.order_stat_exact_s), report.percent(1 - r.order_stat_s / r.max_delay_s, 0))
end
-- The spread across laws, in multiples of the mean and in what backups save.
local function extremes(value)
  local low, high
  for _, r in ipairs(rows) do
    if not low or value(r) < value(low) then low = r end
    if not high or value(r) > value(high) then high = r end
  end
  return low, high
end
local function ratio(r) return r.max_delay_s / r.delay_mean_s end
local function saved(r) return 1 - r.order_stat_s / r.max_delay_s end
local short, long = extremes(ratio)
local least, most = extremes(saved)
printf("=> same mean, different tails: the slowest of %d waits %.1fx the mean delay (%s) "
       .. "to %.1fx (%s); %s (%s more workers) cut that wait by %s (%s) to %s (%s)\n",
       opt.workers, ratio(short), short.law, ratio(long), long.law, backup_workers,
       report.percent(opt.backups / opt.workers, 0), report.percent(saved(least), 0), least.law,
       report.percent(saved(most), 0), most.law)
