-- A value given to a switch.
-- flags: --resume=yes
-- expect: runner: sweep: option '--resume' takes no value; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
