-- options{} declared twice.
-- expect: runner: $SCRIPT:4: options{...} may be declared only once per script
local a = options { workers = 8 }
local b = options { jitter = 2.0 }
