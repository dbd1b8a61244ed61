# Values with units: --set and script values in any unit of the declared
# dimension are stored as the number in the declared unit; a bare number
# means the declared unit, so the points of sweeps written without units
# keep their identity; an incompatible unit is refused with both units named.
. tests/e2e/lib.sh

POINTS="SELECT ordinal, identity, params_json FROM point WHERE sweep_id = %s ORDER BY ordinal"
points_of() { sql "$(printf "$POINTS" "$1")"; }

# 1. The sweep written with bare numbers: its canonical parameters are what
#    runner stored before units existed (the basis of every point's identity).
bare=$(write_script bare.lua <<'EOF'
sweep("speedup", { base = 120, jitter = { 0.5, 2 }, workers = 4, model_params = 1.3e9,
                   bandwidth_bytes_per_s = 1.25e9 }, { print = false })
sweep("memory", { gpu_memory_bytes = 85899345920, model_params = 7500000000, workers = 8 },
      { print = false })
EOF
)
run "$RUNNER" sweep "$bare" --db "$DB"
expect_status 0
expect_sql "SELECT params_json FROM point WHERE sweep_id = 1 ORDER BY id LIMIT 1" \
'{"base":120.0,"jitter":0.5,"workers":4,"trials":0,"model":"walkthrough","scaling":"strong","model_params":1300000000,"bytes_per_param":4,"latency_s":5.0000000000000004e-6,"bandwidth_bytes_per_s":1250000000.0,"reduce_bytes_per_s":100000000000.0}'

# 2. The same sweep with unit strings in the script: the same points.
units=$(write_script units.lua <<'EOF'
sweep("speedup", { base = "2min", jitter = { "500ms", "2 s" }, workers = "4 workers",
                   model_params = "1.3G", bandwidth_bytes_per_s = "10 Gbit/s" }, { print = false })
sweep("memory", { gpu_memory_bytes = "80GiB", model_params = "7.5G", workers = 8 },
      { print = false })
EOF
)
run "$RUNNER" sweep "$units" --db "$DB"
expect_status 0
expect_equal "unit strings give the points of bare numbers" "$(points_of 2)" "$(points_of 1)"
expect_sql "SELECT base, jitter, workers, model_params, typeof(model_params), bandwidth_bytes_per_s
            FROM speedup WHERE sweep_id = 2 ORDER BY jitter" \
"120.0|0.5|4|1300000000|integer|1250000000.0
120.0|2.0|4|1300000000|integer|1250000000.0"
expect_sql "SELECT DISTINCT gpu_memory_bytes, typeof(gpu_memory_bytes), model_params FROM memory WHERE sweep_id = 2" \
    "85899345920|integer|7500000000"

# 3. --set: an option without a unit carries the text to the parameter,
#    which converts it; an option with a unit converts at once (a number the
#    script can compute with); an integer option takes 1.3e9.
opts=$(write_script opts.lua <<'EOF'
local opt = options {
  base    = { default = 30, doc = "seconds one worker needs for a round alone" },
  jitters = { default = { 2.0, 1.0 }, unit = "s", doc = "worst extra delay per round" },
  params  = { default = 1000, doc = "model size, parameters" },
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, workers = 4, model_params = opt.params,
                   bandwidth_bytes_per_s = 1.25e9 }, { print = false })
print(string.format("jitters %s %s, sum %g", math.type(opt.jitters[1]), math.type(opt.jitters[2]),
                    opt.jitters[1] + opt.jitters[2]))
print("params " .. math.type(opt.params) .. " " .. opt.params)
EOF
)
run "$RUNNER" sweep "$opts" --db "$DB" --set base=2min --set jitters=500ms,2s --set params=1.3e9
expect_status 0
expect_stdout_contains "jitters float float, sum 2.5"
expect_stdout_contains "params integer 1300000000"
expect_equal "--set with units gives the points of bare numbers" \
    "$(sql "SELECT identity FROM point WHERE sweep_id = 3 ORDER BY ordinal")" \
    "$(sql "SELECT identity FROM point WHERE sweep_id = 1 AND params_json LIKE '{\"base\"%' ORDER BY ordinal")"
expect_sql "SELECT overrides_json FROM sweep WHERE id = 3" \
    '{"base":"2min","jitters":"500ms,2s","params":"1.3e9"}'
# ... and bare numbers on the command line, as before
run "$RUNNER" sweep "$opts" --db "$DB" --set base=120 --set jitters=0.5,2 --set params=1300000000
expect_status 0
expect_equal "bare --set values give the same points" \
    "$(sql "SELECT identity FROM point WHERE sweep_id = 4 ORDER BY ordinal")" \
    "$(sql "SELECT identity FROM point WHERE sweep_id = 3 ORDER BY ordinal")"

# 4. Option defaults with units flow into the parameter.
defaults=$(write_script defaults.lua <<'EOF'
local opt = options { jitters = { default = { "500ms", "2s" }, doc = "worst extra delay" } }
sweep("speedup", { base = 120, jitter = opt.jitters, workers = 4, model_params = 1.3e9,
                   bandwidth_bytes_per_s = 1.25e9 }, { print = false })
EOF
)
run "$RUNNER" sweep "$defaults" --db "$DB"
expect_status 0
expect_sql "SELECT group_concat(jitter, ' ') FROM (SELECT jitter FROM speedup WHERE sweep_id = 5 ORDER BY jitter)" \
    "0.5 2.0"

# ... and --set items with units for that option (it declares none): the
#    parameter converts them, as it converts the defaults.
run "$RUNNER" sweep "$defaults" --db "$DB" --set jitters=250ms,1.5s
expect_status 0
expect_sql "SELECT group_concat(jitter, ' ') FROM (SELECT jitter FROM speedup WHERE sweep_id = 6 ORDER BY jitter)" \
    "0.25 1.5"

# 5. Refused: exit 2, one line naming both units, the database unchanged.
before=$(sql "SELECT count(*) FROM point")
run "$RUNNER" sweep "$opts" --db "$DB" --set base=2GiB
expect_status 2
expect_stderr "runner: $opts:6: speedup: base: '2GiB': GiB (bytes) does not convert to s (time)"
run "$RUNNER" sweep "$opts" --db "$DB" --set jitters=1,2MB
expect_status 2
expect_stderr "runner: $opts:1: --set jitters=1,2MB: '2MB': MB (bytes) does not convert to s (time)"
bad=$(write_script bad.lua <<'EOF'
sweep("memory", { model_params = "7.5G",
                  gpu_memory_bytes = { "80GiB", "80 GiB/s" } }, { print = false })
EOF
)
run "$RUNNER" sweep "$bad" --db "$DB"
expect_status 2
expect_stderr "runner: $bad:1: memory: gpu_memory_bytes: '80 GiB/s': GiB/s (bytes per time) does not convert to bytes (bytes)"
run "$RUNNER" sweep "$opts" --db "$DB" --set base=3weeks
expect_status 2
expect_stderr "runner: $opts:1: --set base=3weeks: unknown unit 'weeks'"

badunit=$(write_script badunit.lua <<'EOF'
local opt = options { base = { default = 30, unit = 5 } }
EOF
)
run "$RUNNER" sweep "$badunit" --db "$DB"
expect_status 2
expect_stderr "runner: $badunit:1: options{...}: base: unit must be a string such as \"s\" or \"bytes\", got number"

# 6. Integer --set by the rule a script follows: an exact integer or a reason.
run "$RUNNER" sweep "$opts" --db "$DB" --set params=1.3e-9
expect_status 2
expect_stderr "runner: $opts:1: --set params=1.3e-9: expected an integer, got 1.3e-09"
run "$RUNNER" sweep "$opts" --db "$DB" --set params=1e30
expect_status 2
expect_stderr "runner: $opts:1: --set params=1e30: 1e+30 is out of the exact integer range [-2^53, 2^53]"
run "$RUNNER" sweep "$opts" --db "$DB" --set params=2.5k
expect_status 0
expect_sql "SELECT DISTINCT model_params FROM speedup WHERE sweep_id = 7" "2500"
expect_sql "SELECT count(*) FROM point" "$((before + 2))"

# 7. Same identity, same computation: --reuse copies the bare-number points
#    for the unit strings that name them.
run "$RUNNER" sweep "$units" --db "$DB" --reuse --quiet
expect_status 0
expect_stderr_contains "3 points ok, 0 failed, 3 reused"

finish
