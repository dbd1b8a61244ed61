--set workers=eight
local opt = options { workers = 8 }
sweep("testkit", { rows = opt.workers })
