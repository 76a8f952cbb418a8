--- file: URLs and paths, byte for byte.
---
--- Wharf sends `file:` URLs whose path is percent-encoded; a path on Linux is any string of
--- bytes but NUL. Decoding turns every `%XY` back into the byte 0xXY and leaves every other byte
--- alone, so a name that is not UTF-8 (or contains `%`, `#`, `?`, spaces) comes back exactly.
local M = {}

--- The path a `file:` URL names, or nil (and a reason) when it is not a local file URL.
---@param url string
---@return string|nil path
---@return string|nil err
function M.to_path(url)
  if type(url) ~= 'string' then
    return nil, 'not a string'
  end
  local rest = url:match('^[Ff][Ii][Ll][Ee]:(.*)$')
  if not rest then
    return nil, 'not a file: URL: ' .. url
  end
  if rest:sub(1, 2) == '//' then
    local authority, path = rest:match('^//([^/]*)(.*)$')
    if authority ~= '' and authority:lower() ~= 'localhost' then
      return nil, 'a file: URL on another host: ' .. url
    end
    rest = path
  end
  if rest:sub(1, 1) ~= '/' then
    return nil, 'not an absolute file: URL: ' .. url
  end
  -- A query or fragment is not part of a file URL's path; Wharf never sends one, and a `?` or `#`
  -- in a name arrives encoded.
  rest = rest:gsub('[?#].*$', '')
  -- Every `%` must start an escape of two hex digits.
  local at = 1
  while true do
    local pct = rest:find('%', at, true)
    if not pct then
      break
    end
    if not rest:sub(pct + 1, pct + 2):match('^%x%x$') then
      return nil, 'a malformed escape in ' .. url
    end
    at = pct + 3
  end
  local path = rest:gsub('%%(%x%x)', function(hex)
    return string.char(tonumber(hex, 16))
  end)
  if path:find('\0', 1, true) then
    return nil, 'a NUL byte in ' .. url
  end
  return path
end

--- The `file:` URL of an absolute path: every byte outside the unreserved set and `/` is
--- percent-encoded, so the URL is ASCII whatever the path's bytes are.
---@param path string
---@return string
function M.from_path(path)
  local encoded = path:gsub('[^%w%-%._~/]', function(c)
    return string.format('%%%02X', c:byte())
  end)
  return 'file://' .. encoded
end

--- A URL naming `name` inside the directory `dir_url`.
---@param dir_url string
---@param name string
---@return string
function M.join(dir_url, name)
  local base = dir_url:gsub('/+$', '')
  return base .. '/' .. (M.from_path(name):sub(8))
end

--- Whether a string is valid UTF-8 (what a JSON string may carry).
---@param s string
---@return boolean
function M.is_utf8(s)
  if not s:find('[\128-\255]') then
    return true
  end
  local i, n = 1, #s
  while i <= n do
    local c = s:byte(i)
    if c < 0x80 then
      i = i + 1
    else
      local len, min
      if c >= 0xC2 and c <= 0xDF then
        len, min = 2, 0x80
      elseif c >= 0xE0 and c <= 0xEF then
        len, min = 3, 0x800
      elseif c >= 0xF0 and c <= 0xF4 then
        len, min = 4, 0x10000
      else
        return false
      end
      if i + len - 1 > n then
        return false
      end
      local cp = c % (2 ^ (7 - len))
      for k = 1, len - 1 do
        local b = s:byte(i + k)
        if b < 0x80 or b > 0xBF then
          return false
        end
        cp = cp * 64 + (b - 0x80)
      end
      if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then
        return false
      end
      i = i + len
    end
  end
  return true
end

return M
