--set wrokers=8
local opt = options { workers = 8 }
