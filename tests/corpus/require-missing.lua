-- A module that exists nowhere.
-- expect: runner: $SCRIPT:3: require 'helpers': no module lib/helpers.lua next to the script or in runner's scripts/lib
local helpers = require "helpers"
