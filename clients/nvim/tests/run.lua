-- The plugin's test suite: `nvim --clean --headless -l tests/run.lua` with $WHARF naming the
-- binary. Each test drives a fresh child Neovim with real keys. $WHARF_TEST_FILTER runs only the
-- tests whose name contains it.
local here = vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
package.path = here .. '/?.lua;' .. package.path
local H = require('helpers')

if H.wharf == '' or vim.fn.executable(H.wharf) == 0 then
  io.stderr:write('set $WHARF to the wharf binary (got ' .. vim.inspect(H.wharf) .. ')\n')
  os.exit(2)
end

local files = vim.fn.glob(here .. '/test_*.lua', false, true)
table.sort(files)
for _, file in ipairs(files) do
  dofile(file)
end

local filter = vim.env.WHARF_TEST_FILTER
local passed, failed = 0, 0
local started = vim.uv.hrtime()
for _, t in ipairs(H.tests) do
  if not filter or t.name:find(filter, 1, true) then
    local t0 = vim.uv.hrtime()
    local child
    local ok, err = xpcall(function()
      child = H.spawn(t.opts)
      child.expected_dialogs = t.opts.dialogs or 0
      t.fn(child)
      child:finish()
    end, debug.traceback)
    if not ok and child then
      child:kill()
    end
    local ms = (vim.uv.hrtime() - t0) / 1e6
    if ok then
      passed = passed + 1
      io.stdout:write(string.format('ok    %-60s %6.0f ms\n', t.name, ms))
    else
      failed = failed + 1
      io.stdout:write(string.format('FAIL  %-60s %6.0f ms\n%s\n', t.name, ms, tostring(err)))
    end
    io.stdout:flush()
  end
end
io.stdout:write(string.format('nvim plugin: %.1f s\n', (vim.uv.hrtime() - started) / 1e9))
io.stdout:write(string.format('%d passed, %d failed\n', passed, failed))
io.stdout:flush()
os.exit((failed == 0 and passed > 0) and 0 or 1)
