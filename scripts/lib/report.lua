-- report: small helpers sweep scripts share for their summaries:
-- finding rows, and printing sizes with explicit binary or decimal units.
local report = {}

-- The rows sweep() returns are a view of the database (docs/lua-api.md):
-- its find and filter run the condition in SQL instead of making every row.
local function is_view(rows)
  return type(rows) == "userdata"
end

-- The first row whose fields equal every field of `where`, or an error that
-- names what was looked for (a summary must never print a silent nil).
function report.find(rows, where)
  local found = is_view(rows) and rows:find(where)
  if found then return found end
  for _, row in ipairs(is_view(rows) and {} or rows) do
    local ok = true
    for k, v in pairs(where) do
      if row[k] ~= v then ok = false break end
    end
    if ok then return row end
  end
  local parts = {}
  for k, v in pairs(where) do parts[#parts + 1] = k .. "=" .. tostring(v) end
  table.sort(parts)
  error("report.find: no row with " .. table.concat(parts, ", "), 2)
end

-- All rows matching `where` (possibly none).
function report.filter(rows, where)
  if is_view(rows) then return rows:filter(where) end
  local out = {}
  for _, row in ipairs(rows) do
    local ok = true
    for k, v in pairs(where) do
      if row[k] ~= v then ok = false break end
    end
    if ok then out[#out + 1] = row end
  end
  return out
end

-- The largest and smallest value of a column.
function report.max(rows, column)
  local best
  for _, row in ipairs(rows) do
    if best == nil or row[column] > best then best = row[column] end
  end
  return best
end

function report.min(rows, column)
  local best
  for _, row in ipairs(rows) do
    if best == nil or row[column] < best then best = row[column] end
  end
  return best
end

-- Binary units, labelled: 1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes.
function report.mib(bytes) return string.format("%.1f MiB", bytes / 2^20) end
function report.gib(bytes) return string.format("%.1f GiB", bytes / 2^30) end
-- Decimal units, labelled: 1 GB = 1e9 bytes.
function report.gb(bytes) return string.format("%.1f GB", bytes / 1e9) end
-- The size in the binary unit that keeps the number readable.
function report.bytes(bytes)
  if bytes >= 2^30 then return report.gib(bytes) end
  if bytes >= 2^20 then return report.mib(bytes) end
  if bytes >= 2^10 then return string.format("%.1f KiB", bytes / 2^10) end
  return string.format("%d B", bytes)
end

function report.percent(fraction, digits)
  return string.format("%." .. (digits or 1) .. "f%%", 100 * fraction)
end

-- The smallest and the largest of a list of numbers (an option's values
-- come in the order --set gave them: a summary that compares two ends
-- finds them here, never at [1] and [#list]).
function report.span(list)
  local lo, hi = list[1], list[1]
  for _, v in ipairs(list) do
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  return lo, hi
end

-- v with the fewest significant digits (at least `digits`, 4 if not given)
-- that keep it apart from `mark` when it differs: 0.49996 beside a target
-- of 0.5 prints as 0.49996, not as 0.5000.
function report.beside(v, mark, digits)
  for d = digits or 4, 17 do
    local text = string.format("%." .. d .. "g", v)
    if v == mark or tonumber(text) ~= mark then return text end
  end
  return string.format("%.17g", v)
end

return report
