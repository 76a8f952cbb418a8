--- Test helpers: each test gets a fresh Neovim (`nvim --embed --headless`, the plugin on its
--- 'runtimepath' as a plugin manager would put it) driven over RPC from this process with real
--- keys (`nvim_input`), against the real `wharf` binary, in a fresh folder tree.
local H = {}

H.plugin_dir = vim.fs.dirname(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)))
H.plugin_dir = vim.fn.fnamemodify(H.plugin_dir, ':p'):gsub('/$', '')
H.wharf = vim.env.WHARF or vim.fn.exepath('wharf')
H.nvim = vim.env.WHARF_TEST_NVIM or vim.v.progpath

-- MARK: Assertions

local function fail(message, level)
  error(message, (level or 1) + 1)
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    fail(string.format('%s: expected %s, got %s', what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

function H.ok(value, what)
  if not value then
    fail((what or 'expected a true value') .. ', got ' .. vim.inspect(value), 2)
  end
  return value
end

function H.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    fail(string.format('%s: %s does not contain %s', what or 'text', vim.inspect(haystack), vim.inspect(needle)), 2)
  end
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local data = f:read('*a')
  f:close()
  return data
end

function H.write(path, data)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local f = assert(io.open(path, 'wb'))
  f:write(data)
  f:close()
end

-- MARK: The fixture tree

--- home/docs: notes.txt, todo.md, photo.png, .secret.txt, projects/{alpha.txt, deep/beta.txt}
function H.fixture(root)
  local docs = root .. '/home/docs'
  H.write(docs .. '/notes.txt', 'Buy rope.\n')
  H.write(docs .. '/todo.md', '# Todo\n')
  H.write(docs .. '/photo.png', '\137PNG\r\n\26\n\0\0\0\rIHDR')
  H.write(docs .. '/.secret.txt', 'hidden\n')
  H.write(docs .. '/projects/alpha.txt', 'alpha\n')
  H.write(docs .. '/projects/deep/beta.txt', 'beta\n')
  vim.fn.mkdir(root .. '/state', 'p')
  vim.fn.mkdir(root .. '/config', 'p')
  vim.fn.mkdir(root .. '/data', 'p')
  vim.fn.mkdir(root .. '/wharf-state', 'p')
  return docs
end

-- MARK: A child Neovim

local Child = {}
Child.__index = Child

--- The Lua run in the child first: a recorder for on_done calls (every call appended to
--- calls.jsonl, every recorder made to tags.txt) and a log of every dialog ending (the plugin's
--- `User WharfDone` event) in done.jsonl.
local child_prelude = [[
local root = ...
_G.T = { calls = {}, root = root }
local function append(name, line)
  local f = assert(io.open(root .. '/' .. name, 'a'))
  f:write(line .. '\n')
  f:close()
end
function T.recorder(tag)
  append('tags.txt', tag)
  T.calls[tag] = T.calls[tag] or {}
  return function(result)
    table.insert(T.calls[tag], result)
    append('calls.jsonl', vim.json.encode({ tag = tag, status = result.status }))
  end
end
-- Every question asked with vim.ui.select, in questions.jsonl, before it is asked: Neovim 0.10's
-- select (inputlist()) blocks, and answers no request that is not fast until it is answered,
-- so what it asks can be read only from outside.
local select = vim.ui.select
vim.ui.select = function(items, opts, on_choice)
  append('questions.jsonl', vim.json.encode({ prompt = opts and opts.prompt or vim.NIL, count = #items }))
  return select(items, opts, on_choice)
end
vim.api.nvim_create_autocmd('User', {
  pattern = 'WharfDone',
  callback = function(ev)
    append('done.jsonl', vim.json.encode({ dialog_id = ev.data.dialog_id or vim.NIL, status = ev.data.status }))
  end,
})
]]

---@param opts? {setup?: table, presenter?: string, cmd_extra?: string[], runtime_dir?: string}
function H.spawn(opts)
  opts = opts or {}
  local root = vim.fn.tempname() .. '-wharf-nvim'
  vim.fn.mkdir(root, 'p')
  local docs = H.fixture(root)
  local env = {
    HOME = root .. '/home',
    PATH = vim.env.PATH,
    LANG = 'C.UTF-8',
    XDG_STATE_HOME = root .. '/state',
    XDG_CONFIG_HOME = root .. '/config',
    XDG_DATA_HOME = root .. '/data',
    XDG_CACHE_HOME = root .. '/cache',
    XDG_RUNTIME_DIR = opts.runtime_dir or (root .. '/run'),
    TMPDIR = vim.env.TMPDIR or '/tmp',
  }
  local chan = vim.fn.jobstart({
    H.nvim, '--clean', '--embed', '--headless',
    '--cmd', 'set rtp^=' .. vim.fn.fnameescape(H.plugin_dir),
    '--cmd', 'set shortmess+=I noswapfile',
  }, { rpc = true, cwd = docs, env = env, clear_env = true })
  assert(chan > 0, 'could not start ' .. H.nvim)
  local self = setmetatable({ chan = chan, root = root, docs = docs, home = root .. '/home', expected_dialogs = 0 }, Child)
  self:lua(child_prelude, root)
  local setup = vim.tbl_extend('force', {
    cmd = vim.list_extend({ H.wharf, '--state-dir', root .. '/wharf-state' }, opts.cmd_extra or {}),
    presenter = opts.presenter or 'nvim',
  }, opts.setup or {})
  self.setup = setup
  self:lua('require("wharf").setup(...)', setup)
  return self
end

function Child:lua(code, ...)
  local result = vim.rpcrequest(self.chan, 'nvim_exec_lua', code, { ... })
  if result == vim.NIL then
    return nil
  end
  return result
end

--- Types keys, as a person would (`nvim_input`: they go through mappings).
function Child:input(keys)
  vim.rpcrequest(self.chan, 'nvim_input', keys)
end

function Child:mode()
  return vim.rpcrequest(self.chan, 'nvim_get_mode').mode
end

--- Polls `fn(self)` until it returns a true value (returned), failing after `timeout` ms.
function Child:wait(fn, what, timeout)
  local value
  local ok = vim.wait(timeout or 5000, function()
    value = fn(self)
    return value and true or false
  end, 10)
  if not ok then
    fail('timed out waiting for ' .. (what or 'a condition') .. '\n' .. self:describe(), 2)
  end
  return value
end

--- Waits for a prompt (command-line input or a list to choose from) to be up.
function Child:wait_prompt(what)
  return self:wait(function()
    local mode = self:mode()
    return mode ~= 'n' and mode or nil
  end, what or 'a prompt')
end

--- Whether the child is blocked in a prompt that answers only fast requests (`nvim_get_mode`):
--- Neovim 0.10's vim.ui.select (inputlist()) is; a request that is not fast would wait for ever.
function Child:blocked()
  return vim.rpcrequest(self.chan, 'nvim_get_mode').blocking
end

--- Waits for the next vim.ui.select question to be up; returns `{prompt, count}`. Asks the child
--- nothing but its mode, which is answered even while the question blocks it.
function Child:wait_question(what)
  self.questions_seen = (self.questions_seen or 0) + 1
  return self:wait(function()
    local lines = vim.split(H.read(self.root .. '/questions.jsonl') or '', '\n', { trimempty = true })
    local question = lines[self.questions_seen]
    return question and self:mode() ~= 'n' and vim.json.decode(question) or nil
  end, what or 'a question')
end

function Child:wait_normal(what)
  return self:wait(function()
    return self:mode() == 'n'
  end, what or 'normal mode')
end

--- The picker's window, or nil: `{win, buf, lines, title, footer, cursor, entries}` where
--- `entries` are the names shown (no mark, folders with their `/`).
function Child:picker()
  return self:lua([[
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.bo[b].filetype == 'wharf' then
        local c = vim.api.nvim_win_get_config(w)
        local function text(chunks)
          if type(chunks) == 'string' then return chunks end
          local out = {}
          for _, chunk in ipairs(chunks or {}) do table.insert(out, chunk[1]) end
          return table.concat(out)
        end
        return {
          win = w, buf = b, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false),
          title = text(c.title), footer = text(c.footer), cursor = vim.api.nvim_win_get_cursor(w),
          current = vim.api.nvim_get_current_win() == w, relative = c.relative,
        }
      end
    end
    return nil
  ]])
end

--- Waits for the picker to show a listed folder (and `pred(picker)`, if given).
--- Counts the picker windows ever opened (FileType wharf) from now on, in `T.pickers`.
function Child:count_pickers()
  self:lua([[
    T.pickers = 0
    vim.api.nvim_create_autocmd('FileType', { pattern = 'wharf', callback = function() T.pickers = T.pickers + 1 end })
  ]])
end

function Child:wait_picker(pred, what)
  return self:wait(function()
    local p = self:picker()
    if not p then
      return nil
    end
    for _, line in ipairs(p.lines) do
      if line:find('loading…', 1, true) then
        return nil
      end
    end
    if pred and not pred(p) then
      return nil
    end
    return p
  end, what or 'the picker')
end

function Child:wait_no_picker(what)
  return self:wait(function()
    return self:picker() == nil
  end, what or 'the picker to close')
end

--- The line number showing `name` (as shown: folders end with `/`).
function Child:line_of(name, picker)
  picker = picker or self:picker()
  for i, line in ipairs(picker and picker.lines or {}) do
    if line:sub(3) == name then
      return i
    end
  end
  fail(string.format('%s is not shown; lines: %s', name, vim.inspect(picker and picker.lines)), 2)
end

--- Moves the cursor onto `name` with `{count}G`, as a person would.
function Child:go(name)
  local line = self:line_of(name)
  self:input(line .. 'G')
  self:wait(function()
    local p = self:picker()
    return p and p.cursor[1] == line
  end, 'the cursor on ' .. name)
end

--- Everything `on_done` recorded under `tag`.
function Child:calls(tag)
  return self:lua('return T.calls[...] or {}', tag)
end

--- Waits for `on_done` of `tag` to have been called; returns the first result.
function Child:wait_done(tag, what)
  local calls = self:wait(function()
    local calls = self:calls(tag)
    return #calls > 0 and calls or nil
  end, what or ('on_done of ' .. tag))
  return calls[1]
end

function Child:messages()
  return self:lua('return vim.fn.execute("messages")')
end

--- What the child's screen shows, one string per row (its grid is drawn though no UI is attached):
--- how a prompt or a question looks to the person answering it.
function Child:screen()
  return self:lua([[
    local rows = {}
    for row = 1, vim.o.lines do
      local cells = {}
      for col = 1, vim.o.columns do
        table.insert(cells, vim.fn.screenstring(row, col))
      end
      table.insert(rows, (table.concat(cells):gsub('%s+$', '')))
    end
    return rows
  ]])
end

--- A picture of the child for a failure message.
function Child:describe()
  local ok, state = pcall(function()
    return self:lua([[
      local wins = {}
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        local b = vim.api.nvim_win_get_buf(w)
        table.insert(wins, { ft = vim.bo[b].filetype, name = vim.api.nvim_buf_get_name(b),
          lines = vim.api.nvim_buf_get_lines(b, 0, 12, false) })
      end
      return { mode = vim.api.nvim_get_mode(), wins = wins, calls = T.calls, messages = vim.fn.execute('messages') }
    ]])
  end)
  return ok and vim.inspect(state) or ('(the child does not answer: ' .. tostring(state) .. ')')
end

function Child:log()
  return H.read(self.root .. '/state/nvim/wharf.log') or ''
end

local function lines_of(path)
  local out = {}
  local data = H.read(path)
  for line in (data or ''):gmatch('[^\n]+') do
    table.insert(out, line)
  end
  return out
end

--- Ends the child as a person would (`:qa!`) and checks what every test must hold:
--- every `on_done` made was called exactly once, every dialog ended exactly once (and as many
--- dialogs as the test said), and Wharf, if it ran, was shut down cleanly (status 0).
function Child:finish()
  if self.finished then
    return
  end
  self.finished = true
  pcall(vim.rpcnotify, self.chan, 'nvim_command', 'qa!')
  local status = vim.fn.jobwait({ self.chan }, 10000)[1]
  if status == -1 then
    vim.fn.jobstop(self.chan)
    fail('Neovim did not exit within 10 s of :qa!')
  end
  local counts = {}
  for _, line in ipairs(lines_of(self.root .. '/calls.jsonl')) do
    local call = vim.json.decode(line)
    counts[call.tag] = (counts[call.tag] or 0) + 1
  end
  for _, tag in ipairs(lines_of(self.root .. '/tags.txt')) do
    if (counts[tag] or 0) ~= 1 then
      fail(string.format('on_done %s was called %d times (after exit), not once', tag, counts[tag] or 0))
    end
  end
  -- Dialog ids are per wharf process: an id may end once in each process the test started.
  local log = self:log()
  local sessions = select(2, log:gsub('initialized: ', ''))
  local ids, total = {}, 0
  for _, line in ipairs(lines_of(self.root .. '/done.jsonl')) do
    local done = vim.json.decode(line)
    total = total + 1
    if done.dialog_id ~= vim.NIL and done.dialog_id ~= nil then
      ids[done.dialog_id] = (ids[done.dialog_id] or 0) + 1
      if ids[done.dialog_id] > math.max(sessions, 1) then
        fail('dialog ' .. done.dialog_id .. ' ended twice')
      end
    end
  end
  if total ~= self.expected_dialogs then
    fail(string.format('%d dialogs ended, the test expected %d', total, self.expected_dialogs))
  end
  -- The last session that started was shut down cleanly.
  local last = nil
  for at in log:gmatch('()initialized: ') do
    last = at
  end
  if last and not log:find('wharf exited with status 0', last, true) then
    fail('wharf did not exit cleanly with status 0; log:\n' .. log)
  end
  vim.fn.delete(self.root, 'rf')
end

--- Stops the child's wharf (SIGSTOP), as a wedged one would be; returns its pid.
function Child:stop_wharf()
  local pid = self:lua('return require("wharf").status().pid')
  vim.uv.kill(pid, 'sigstop')
  self.stopped_pid = pid
  return pid
end

--- Lets the stopped wharf go on (SIGCONT).
function Child:continue_wharf()
  if self.stopped_pid then
    vim.uv.kill(self.stopped_pid, 'sigcont')
    self.stopped_pid = nil
  end
end

function Child:kill()
  -- A wharf a failed test left stopped would never read its closed input and exit.
  self:continue_wharf()
  if not self.finished then
    self.finished = true
    pcall(vim.fn.jobstop, self.chan)
  end
end

-- MARK: Running

H.tests = {}

--- Declares a test: `fn(child)` gets a fresh child started with `opts` (see `H.spawn`);
--- `opts.dialogs` is how many dialogs the test ends.
function H.test(name, opts, fn)
  if type(opts) == 'function' then
    fn, opts = opts, {}
  end
  table.insert(H.tests, { name = name, opts = opts, fn = fn })
end

return H
