--set workers=eight
local opt = options { workers = 8 }
