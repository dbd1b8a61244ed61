-- A path instead of a module name.
-- expect: runner: $SCRIPT:3: require 'lib/report': module names are lower-case words separated by dots
local report = require "lib/report"
