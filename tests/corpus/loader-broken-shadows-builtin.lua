-- A broken speedup.so in an explicit --plugin-dir (test_corpus.sh makes
-- $TMP/shadow/speedup.so, a copy of the not-a-shared-object fixture). The
-- directory the user named comes first, so its failure is the answer.
-- BUG: runner silently skips the broken file, runs the built-in speedup
-- from build/plugins, exits 0 and stores a sweep.
-- flags: --plugin-dir $TMP/shadow
-- expect: runner: $SCRIPT:8: $TMP/shadow/speedup.so: cannot load plugin: $TMP/shadow/speedup.so: file too short (is it a shared object built for this machine? check it with 'file' and 'ldd')
sweep("speedup", { workers = { 1, 2 } }, { print = false })
