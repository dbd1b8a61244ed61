# The core's proof end to end: scripts/jitter.lua through the real binary,
# rows checked with the plain sqlite3 shell (no JSON functions, no joins).
. tests/e2e/lib.sh

run "$RUNNER" sweep scripts/jitter.lua --db "$DB"
expect_status 0
expect_stdout_contains "Speedup vs workers, per jitter"
expect_stdout_contains "speedup"
expect_stdout_contains "ceiling T1/J = 15.5x"

# The query from the README returns the 24 rows (3 jitters x 8 worker counts).
expect_sql "SELECT count(*) FROM (SELECT jitter, workers, speedup FROM speedup WHERE sweep_id = (SELECT max(id) FROM sweep))" "24"
# Exact expected waits: S(512) = (30 + 1) / (30/512 + 2*512/513) = 15.0866...
expect_sql "SELECT printf('%.2f', speedup) FROM speedup WHERE jitter = 2.0 AND workers = 512" "15.09"
expect_sql "SELECT printf('%.1f', ceiling) FROM speedup WHERE jitter = 2.0 AND workers = 1" "15.5"
expect_sql "SELECT printf('%.1f', ceiling) FROM speedup WHERE jitter = 0.5 AND workers = 1" "60.5"
expect_sql "SELECT printf('%.1f', ceiling_amdahl) FROM speedup WHERE jitter = 2.0 AND workers = 1" "15.0"
# Karp-Flatt is undefined at one worker: NaN survives as the text 'NaN'.
expect_sql "SELECT DISTINCT typeof(karp_flatt) || ':' || karp_flatt FROM speedup WHERE workers = 1" "text:NaN"
expect_sql "SELECT count(*) FROM speedup WHERE workers > 1 AND typeof(karp_flatt) = 'real'" "21"

# Provenance: the script's text and hash, the plugin's shared object and hash.
expect_sql "SELECT status, script_path, seed FROM sweep" "ok|scripts/jitter.lua|0"
expect_sql "SELECT script_sha256 FROM sweep" "$(sha256sum scripts/jitter.lua | cut -d' ' -f1)"
expect_sql "SELECT script_text = CAST(readfile('scripts/jitter.lua') AS TEXT) FROM sweep" "1"
expect_sql "SELECT plugin, so_sha256 FROM sweep_plugin" "speedup|$(sha256sum "$RUNNER_BUILD/plugins/speedup.so" | cut -d' ' -f1)"
expect_sql "SELECT count(*) FROM point WHERE status = 'ok'" "24"
# Each point's parameters, rebuilt by the view from its block, are the ones
# its result row holds (jitter and workers are swept, base is not).
expect_sql "SELECT count(*) FROM speedup AS r JOIN point AS p ON p.id = r.point_id
    WHERE json_extract(p.params_json, '$.jitter') = r.jitter
      AND json_extract(p.params_json, '$.workers') = r.workers
      AND json_extract(p.params_json, '$.base') = r.base
      AND json_extract(p.params_json, '$.model') = r.model" "24"
expect_sql "SELECT count(*) FROM section" "1"
expect_sql "PRAGMA user_version" "$(runner_schema)"
expect_sql "PRAGMA journal_mode" "wal"
# Option values used are recorded with the sweep.
expect_sql "SELECT options_json FROM sweep" '{"base":30,"jitters":[2.0,1.0,0.5]}'

# --set overrides an option and is recorded; a second sweep adds rows.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --set jitters=2,0.25 --quiet
expect_status 0
expect_sql "SELECT count(*) FROM speedup WHERE sweep_id = (SELECT max(id) FROM sweep)" "16"
expect_sql "SELECT overrides_json FROM sweep WHERE id = 2" '{"jitters":"2,0.25"}'
expect_sql "SELECT printf('%.1f', ceiling) FROM speedup WHERE sweep_id = 2 AND jitter = 0.25 AND workers = 1" "120.5"

# runner show prints the stored rows back; CSV keeps NaN and full precision.
run "$RUNNER" show 1 --db "$DB" --format csv
expect_status 0
expect_stdout_contains "base,jitter,workers,trials,"
expect_stdout_contains ",wait_s,"
expect_stdout_contains "NaN"
run "$RUNNER" sweeps --db "$DB"
expect_status 0
expect_stdout_contains "scripts/jitter.lua"
finish
