-- options{} with a list instead of names.
-- expect: runner: $SCRIPT:3: options{...}: keys must be option names
local opt = options { 8, 16 }
