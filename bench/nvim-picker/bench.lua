-- The Neovim plugin's speed: :WharfOpen to the picker filled, over 20 entries and 10,000, with
-- wharf not yet started and already started, and with the 10,000 in one page (one dialog/list
-- answer of about 1.5 MB: the framing, decoding and dispatch of a large message). Run by run.sh
-- with `nvim --clean --headless -l`; it drives a headless child Neovim (`--embed`), and each time
-- is taken inside the child, from the command to the picker's buffer holding the entries.
local wharf, plugin, work = assert(vim.env.WHARF), assert(vim.env.PLUGIN), assert(vim.env.WORK)
local reps = tonumber(vim.env.BENCH_REPS or '9')
local nvim = vim.env.BENCH_NVIM or vim.v.progpath

local chan = vim.fn.jobstart({ nvim, '--clean', '--embed', '--headless', '--cmd', 'set rtp^=' .. plugin },
  { rpc = true, cwd = work })
local function lua(code, ...)
  return vim.rpcrequest(chan, 'nvim_exec_lua', code, { ... })
end

lua([[
  local wharf, work = ...
  _G.B = {}
  function B.setup(page_size)
    require('wharf').setup({ cmd = { wharf, '--state-dir', work .. '/state' }, presenter = 'nvim', log_file = work .. '/wharf.log',
      page_size = page_size })
  end
  local function picker_buf()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.bo[b].filetype == 'wharf' then
        return b
      end
    end
  end
  -- :WharfOpen in `dir` until the picker's buffer holds `lines` lines; ms.
  function B.open(dir, lines, cold)
    vim.cmd.cd(dir)
    if cold then
      local stopped = false
      require('wharf').stop(function() stopped = true end)
      vim.wait(5000, function() return stopped end, 1)
    end
    local t0 = vim.uv.hrtime()
    vim.cmd('WharfOpen')
    local ok = vim.wait(20000, function()
      local b = picker_buf()
      return b ~= nil and vim.api.nvim_buf_line_count(b) >= lines
    end, 1)
    local ms = (vim.uv.hrtime() - t0) / 1e6
    assert(ok, 'the picker did not fill in ' .. dir)
    return ms
  end
  function B.close()
    vim.api.nvim_input('q')
  end
  function B.closed()
    return picker_buf() == nil
  end
]], wharf, work)

local function median(list)
  table.sort(list)
  return list[math.ceil(#list / 2)]
end

local function measure(dir, lines, cold, page_size)
  lua('B.setup(...)', page_size)
  local times = {}
  for _ = 1, reps do
    table.insert(times, lua('return B.open(...)', dir, lines, cold))
    lua('B.close()')
    assert(vim.wait(5000, function()
      return lua('return B.closed()')
    end, 5), 'the picker did not close')
  end
  local sorted = vim.deepcopy(times)
  table.sort(sorted)
  return string.format('%.1f (%.1f–%.1f)', median(times), sorted[1], sorted[#sorted])
end

local small, big = work .. '/small', work .. '/big'
local rows = {
  { ':WharfOpen → picker filled, wharf not started', measure(small, 20, true), measure(big, 200, true) },
  { ':WharfOpen → picker filled, wharf started', measure(small, 20, false), measure(big, 200, false) },
  { ':WharfOpen → all 10,000 in one page (page_size = 10000), wharf started', '', measure(big, 10000, false, 10000) },
}
io.stdout:write(string.format('The Neovim plugin (%s), ms, median (min–max) of %d\n\n', vim.trim(
  vim.fn.system({ nvim, '--version' }):match('^[^\n]*')), reps))
io.stdout:write('| | 20 entries | 10,000 entries |\n| --- | --- | --- |\n')
for _, row in ipairs(rows) do
  io.stdout:write(string.format('| %s | %s | %s |\n', row[1], row[2] ~= '' and row[2] or '—', row[3]))
end
vim.fn.jobstop(chan)
