local t = {}
for i = 1, 1e9 do t[i] = string.rep("y", 1024) .. i end
