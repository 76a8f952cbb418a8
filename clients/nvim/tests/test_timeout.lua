-- Deadlines: a wharf that stops answering (SIGSTOP here, as a wedged one would) never leaves a
-- caller waiting for ever, and :WharfStop ends it. Each test uses a short `request_timeout_ms`
-- to be quick, and lets wharf go on (SIGCONT) before the end, or ends it with :WharfStop and
-- starts a new one, so that finish() still sees the last one exit cleanly.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

local SHORT = { request_timeout_ms = 1000, trace = true }

local function import(c, tag, opts)
  opts = opts or {}
  opts.default_directory = opts.default_directory or c.docs
  c:lua('T.handle = require("wharf").import(..., T.recorder(' .. vim.inspect(tag) .. '))', opts)
end

--- Starts the session (a ping answered).
local function start(c)
  eq(nil, c:lua('return require("wharf.client").request_sync("ping", vim.empty_dict(), 5000)'), 'ping answered')
end

local function open_dialogs(c)
  return c:lua('return vim.tbl_count(require("wharf.client").open_dialogs())')
end

--- Waits for the log to say `text` `n` times (default once).
local function wait_log(c, text, n)
  c:wait(function()
    return select(2, c:log():gsub(vim.pesc(text), '')) >= (n or 1)
  end, 'the log to say ' .. text)
end

H.test('timeout: presentImporter to a stopped wharf fails once, is cancelled; its late answer is dropped', {
  dialogs = 2,
  setup = SHORT,
}, function(c)
  start(c)
  c:count_pickers()
  local pid = c:stop_wharf()
  local t0 = vim.uv.hrtime()
  import(c, 'stalled', {})
  local r = c:wait_done('stalled')
  local waited = (vim.uv.hrtime() - t0) / 1e6
  ok(waited >= 900 and waited < 4000, 'on_done after about request_timeout_ms (' .. waited .. ' ms)')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'failed, the request cancelled')
  eq('wharf did not answer presentImporter within 1 s', r.error.message, 'what did not answer')
  eq(true, r.error.data.timeout, 'data.timeout')
  contains(c:messages(), 'wharf: wharf did not answer presentImporter within 1 s (is wharf pid ' .. pid
    .. ' stopped or overloaded?); the request was cancelled; :WharfStop ends it, and the next dialog starts a new one',
    'the user is told, and the way out')
  eq(0, open_dialogs(c), 'no dialog thought open')
  -- The request was cancelled on the server: `$/cancelRequest` with its id went out.
  -- (Neovim 0.10's vim.json.encode writes a slash as \/, the same JSON string.)
  contains((c:log():gsub('\\/', '/')), '"method":"$/cancelRequest"', 'the cancellation sent')
  c:continue_wharf()
  -- Wharf answers it now (-32800, or the dialog id if it presented before reading the
  -- cancellation): dropped, never a second on_done, never a picker.
  wait_log(c, 'late answer to presentImporter')
  vim.wait(300)
  eq(1, #c:calls('stalled'), 'on_done called once')
  eq(0, c:lua('return T.pickers'), 'no picker shown')
  eq(0, open_dialogs(c), 'still no dialog open')
  -- The same wharf goes on serving.
  import(c, 'after', {})
  c:wait_picker()
  eq(pid, c:lua('return require("wharf").status().pid'), 'the same process')
  c:input('q')
  eq('user', c:wait_done('after').reason, 'dismissed')
end)

H.test('timeout: a dialog presented after its deadline is cancelled at once, never shown', {
  dialogs = 1,
  setup = SHORT,
}, function(c)
  start(c)
  c:count_pickers()
  -- Wharf presents the dialog before it reads the cancellation (a race the cancellation can
  -- lose): here it never gets one, as the session's `$/cancelRequest` is dropped.
  c:lua([[
    local name, session
    local i = 1
    repeat
      name, session = debug.getupvalue(require('wharf.client').status, i)
      i = i + 1
    until name == 'session' or name == nil
    local rpc = session.rpc
    local notify = rpc.notify
    rpc.notify = function(self, method, params)
      if method ~= '$/cancelRequest' then
        return notify(self, method, params)
      end
    end
  ]])
  c:stop_wharf()
  import(c, 'late', {})
  local r = c:wait_done('late')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'the timeout')
  c:continue_wharf()
  wait_log(c, 'late answer to presentImporter')
  -- The dialog wharf presented is ended (`cancel`), and what it says of it is dropped.
  c:wait(function()
    local log = c:log()
    return log:find('"method":"cancel"', 1, true) and log:find('"reason":"client"', 1, true)
  end, 'the late dialog cancelled')
  vim.wait(200)
  eq(0, c:lua('return T.pickers'), 'no picker shown')
  eq(0, open_dialogs(c), 'no dialog open')
  eq(1, #c:calls('late'), 'on_done called once')
  contains(c:log(), '"result":{"dialogId":"dlg-1"}', 'the late answer named a dialog')
end)

H.test('timeout: cancel() unanswered ends the dialog for its caller, once', { dialogs = 1, setup = SHORT }, function(c)
  import(c, 'cancel', {})
  c:wait_picker()
  c:stop_wharf()
  c:lua('T.handle.cancel()')
  local r = c:wait_done('cancel')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'the timeout')
  eq('wharf did not answer cancel within 1 s', r.error.message, 'what did not answer')
  c:wait_no_picker()
  eq(0, open_dialogs(c), 'no dialog open')
  c:continue_wharf()
  -- Wharf ends the dialog now (dialog/cancelled): dropped, on_done is not called again.
  wait_log(c, 'late answer to cancel')
  c:wait(function()
    return c:log():find('"reason":"client"', 1, true)
  end, 'wharf ending the dialog')
  vim.wait(200)
  eq(1, #c:calls('cancel'), 'on_done called once')
end)

H.test('timeout: a stopped wharf behind the picker: the listing says so, q still ends the dialog once', {
  dialogs = 1,
  setup = SHORT,
}, function(c)
  import(c, 'picker', {})
  c:wait_picker()
  c:stop_wharf()
  c:input('-')
  local p = c:wait_picker(function(picker)
    return picker.footer:find('did not answer dialog/list', 1, true)
  end, 'the footer saying the listing got no answer')
  ok(p, 'the picker stays')
  c:input('q')
  local r = c:wait_done('picker')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'dismissing timed out')
  contains(r.error.message, 'dialog/dismiss', 'what did not answer')
  eq(0, open_dialogs(c), 'no dialog open')
  local messages = c:messages()
  contains(messages, 'did not answer dialog/list within 1 s', 'the user told of the listing')
  contains(messages, 'did not answer dialog/dismiss within 1 s', 'and of the dismissal')
  eq(1, select(2, messages:gsub('did not answer dialog/list', '')), 'told once')
  c:continue_wharf()
  wait_log(c, 'late answer to dialog/dismiss')
  vim.wait(200)
  eq(1, #c:calls('picker'), 'on_done called once')
end)

H.test('timeout: initialize unanswered: the dialog fails, that process is ended, the next starts another', {
  dialogs = 1,
  -- A "server" that never reads nor answers.
  setup = { cmd = { 'sleep', '60' }, request_timeout_ms = 500 },
}, function(c)
  import(c, 'init', {})
  local r = c:wait_done('init')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'the timeout')
  eq('wharf did not answer initialize within 500 ms', r.error.message, 'what did not answer')
  contains(c:messages(), 'did not answer initialize within 500 ms', 'the user is told')
  c:wait(function()
    return c:log():find('killed by signal 15', 1, true)
  end, 'the process ended')
  eq(false, c:lua('return require("wharf").status().running'), 'no session')
end)

H.test('timeout: initialize unanswered by a process that ignores SIGTERM: it is killed all the same', {
  dialogs = 1,
  -- A "server" that neither answers nor ends when asked, as a stopped wharf would not.
  setup = { cmd = { 'sh', '-c', 'trap "" TERM; exec sleep 60' }, request_timeout_ms = 500 },
}, function(c)
  import(c, 'init', {})
  local r = c:wait_done('init')
  eq({ 'failed', -32800 }, { r.status, r.error.code }, 'the timeout')
  c:wait(function()
    return c:log():find('killed by signal 9', 1, true)
  end, 'the process killed')
  eq(false, c:lua('return require("wharf").status().running'), 'no session')
  eq(1, #c:calls('init'), 'on_done called once')
end)

H.test('timeout: every request\'s timer is closed, answered or expired', { dialogs = 0, setup = SHORT }, function(c)
  start(c)
  -- The timers made from now on, counted by vim.uv.new_timer (not vim.uv.walk, which aborts
  -- Neovim 0.10 at the first handle that Neovim made itself, not luv).
  c:lua([[
    T.timers = setmetatable({}, { __mode = 'k' })
    local new_timer = vim.uv.new_timer
    vim.uv.new_timer = function(...)
      local timer = new_timer(...)
      if timer then
        T.timers[timer] = true
      end
      return timer
    end
  ]])
  local function timers()
    return c:lua([[
      local n = 0
      for timer in pairs(T.timers) do
        if not timer:is_closing() then n = n + 1 end
      end
      return n
    ]])
  end
  vim.wait(100)
  local before = timers()
  c:lua([[
    T.answered = 0
    for _ = 1, 50 do
      require('wharf.client').request('ping', vim.empty_dict(), function(err) if not err then T.answered = T.answered + 1 end end)
    end
  ]])
  c:wait(function()
    return c:lua('return T.answered') == 50
  end, '50 pings answered')
  vim.wait(50)
  eq(before, timers(), 'no timer left by answered requests')
  c:stop_wharf()
  c:lua([[
    T.expired = 0
    for _ = 1, 5 do
      require('wharf.client').request('ping', vim.empty_dict(), function(err)
        if err and err.data and err.data.timeout then T.expired = T.expired + 1 end
      end, { timeout_ms = 200, quiet = true })
    end
  ]])
  c:wait(function()
    return c:lua('return T.expired') == 5
  end, '5 pings expired')
  vim.wait(50)
  eq(before, timers(), 'no timer left by expired requests')
  c:continue_wharf()
  wait_log(c, 'late answer to ping', 5)
  eq(5, c:lua('return T.expired'), 'each callback called once')
end)

H.test('timeout: request_timeout_ms is checked; false waits for ever; store writes get the store\'s patience', {
  dialogs = 0,
}, function(c)
  local function setup_error(value)
    return c:lua('local ok, err = pcall(require("wharf").setup, { request_timeout_ms = ... }); return not ok and err or nil',
      value)
  end
  eq(10000, c:lua('return require("wharf.config").defaults.request_timeout_ms'), 'the default')
  contains(setup_error(0), 'request_timeout_ms must be a whole number of milliseconds', '0')
  contains(setup_error(1.5), 'request_timeout_ms must be', 'a fraction')
  contains(setup_error(true), 'request_timeout_ms must be', 'true')
  contains(setup_error('10s'), 'request_timeout_ms: expected', 'a string')
  eq(nil, setup_error(2000), '2000 is fine')
  eq(2000, c:lua('return require("wharf.client").deadline("presentImporter")'), 'presentImporter')
  eq(35000, c:lua('return require("wharf.client").deadline("revokeAccess")'), 'revokeAccess waits for the store')
  eq(nil, setup_error(false), 'false is fine')
  eq(nil, c:lua('return require("wharf.client").deadline("presentImporter")'), 'no deadline')
end)

--- Whether process `pid` exists (signal 0 checks without sending anything).
local function alive(pid)
  return vim.uv.kill(pid, 0) == 0
end

H.test(':WharfStop ends a stopped wharf: each open dialog ends once, the next dialog starts a new wharf', {
  dialogs = 4,
  -- Stopping must take well under the pending request's deadline, so that its end comes from
  -- the process's end.
  setup = { request_timeout_ms = 1000, shutdown_timeout_ms = 400, trace = true },
}, function(c)
  import(c, 'open', {})
  c:wait_picker()
  local pid = c:stop_wharf()
  import(c, 'stalled', {})
  eq(-32800, c:wait_done('stalled').error.code, 'the dialog\'s request timed out')
  contains(c:messages(), 'stopped or overloaded?); the request was cancelled; :WharfStop ends it', 'the way out named')
  eq(true, c:lua('return require("wharf").status().running'), 'the wedged session kept')
  -- A request still waiting for its answer when the session ends.
  import(c, 'pending', {})
  local t0 = vim.uv.hrtime()
  c:input(':WharfStop<CR>')
  -- :WharfStop returns at once; the user is told when the process has ended.
  local said = c:wait(function()
    return c:messages():match('wharf: stopped %(pid[^\n]*')
  end, 'the user told')
  local took = (vim.uv.hrtime() - t0) / 1e6
  eq('wharf: stopped (pid ' .. pid .. ', killed: it did not exit when asked); the next dialog starts it again', said,
    'what the user is told')
  -- shutdown_timeout_ms, then the reaping of a SIGKILLed process: no more than the event loop's turn.
  ok(took < 400 + 1500, 'the stopped wharf ended about shutdown_timeout_ms after :WharfStop (' .. took .. ' ms)')
  ok(not alive(pid), 'wharf pid ' .. pid .. ' is gone')
  c.stopped_pid = nil
  contains(c:log(), 'wharf was killed by signal 9', 'the log says how it ended')
  eq(false, c:lua('return require("wharf").status().running'), 'no session')
  -- Every dialog ended, once: the one whose picker was up, the one still asking.
  c:wait_no_picker()
  local open = c:wait_done('open')
  eq({ 'failed', -32603 }, { open.status, open.error.code }, 'the open dialog lost with its wharf')
  -- (The message goes on with wharf's last lines on stderr.)
  eq('wharf was killed by signal 9', open.error.message:sub(1, 28), 'how it was lost')
  eq('failed', c:wait_done('pending').status, 'the pending one failed')
  eq(0, open_dialogs(c), 'no dialog thought open')
  vim.wait(200)
  for _, tag in ipairs({ 'open', 'stalled', 'pending' }) do
    eq(1, #c:calls(tag), 'on_done of ' .. tag .. ' called once')
  end
  -- The next dialog starts a new wharf, which shows its picker.
  import(c, 'after', {})
  c:wait_picker()
  local new = c:lua('return require("wharf").status().pid')
  ok(new ~= pid and alive(new), 'a new process (' .. tostring(new) .. ')')
  c:input('q')
  eq('user', c:wait_done('after').reason, 'dismissed')
end)

--- The windows showing a picker, and which has the focus.
local function pickers(c)
  return c:lua([[
    local shown = {}
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.bo[b].filetype == 'wharf' then
        table.insert(shown, { current = w == vim.api.nvim_get_current_win(), lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) })
      end
    end
    return shown
  ]])
end

H.test(':WharfStop returns at once: the editor goes on, and a dialog opened while the old wharf ends gets a new one', {
  -- The default shutdown_timeout_ms (2 s): a stopped wharf is killed only then.
  dialogs = 2,
}, function(c)
  import(c, 'old', {})
  c:wait_picker()
  local pid = c:stop_wharf()
  local t0 = vim.uv.hrtime()
  -- Typed at once, as a person would: the keys after :WharfStop wait for nothing.
  c:input(':WharfStop<CR>:WharfOpen<CR>')
  local new = c:wait(function()
    local shown = pickers(c)
    local current = vim.tbl_filter(function(p) return p.current end, shown)[1]
    local status = c:lua('return require("wharf").status()')
    return #shown == 2 and current and vim.tbl_contains(current.lines, '  notes.txt') and status.pid ~= pid and status.pid
  end, 'a new picker, from a new wharf', 1500)
  local took = (vim.uv.hrtime() - t0) / 1e6
  ok(alive(pid), 'the old wharf (pid ' .. pid .. ') is still being stopped')
  ok(took < 1500, 'the new picker was up ' .. took .. ' ms after :WharfStop, long before shutdown_timeout_ms')
  eq(nil, c:messages():find('wharf: stopped', 1, true), 'the old wharf has not ended yet')
  -- The old wharf is killed at shutdown_timeout_ms; its dialog ends, and only its.
  local said = c:wait(function()
    return c:messages():match('wharf: stopped %(pid[^\n]*')
  end, 'the old wharf ended')
  eq('wharf: stopped (pid ' .. pid .. ', killed: it did not exit when asked); the next dialog starts it again', said,
    'what the user is told')
  c.stopped_pid = nil
  ok(not alive(pid), 'pid ' .. pid .. ' is gone')
  local r = c:wait_done('old')
  eq({ 'failed', -32603 }, { r.status, r.error.code }, 'the old dialog lost with its wharf')
  c:wait(function()
    return #pickers(c) == 1
  end, 'the old picker closed')
  eq(new, c:lua('return require("wharf").status().pid'), 'the new wharf runs on')
  -- The new dialog goes on with its wharf.
  c:go('notes.txt')
  c:input('<CR>')
  c:wait(function()
    return c:lua('return vim.api.nvim_buf_get_name(0)') == c.docs .. '/notes.txt'
  end, 'the file chosen in the new picker edited')
  eq(1, #c:calls('old'), 'on_done of the old dialog called once')
end)

H.test(':WharfStop ends a wharf stopped before it answered initialize; the dialog waiting for it ends once', {
  dialogs = 1,
  -- A "server" that never answers, stopped as well: it acts on neither its closed input nor SIGTERM.
  setup = { cmd = { 'sleep', '60' }, request_timeout_ms = 5000, shutdown_timeout_ms = 400 },
}, function(c)
  import(c, 'waiting', {})
  c:wait(function()
    return c:lua('return require("wharf").status().pid')
  end, 'the process started')
  local pid = c:stop_wharf()
  c:input(':WharfStop<CR>')
  local said = c:wait(function()
    return c:messages():match('wharf: stopped %(pid[^\n]*')
  end, 'the user told')
  eq('wharf: stopped (pid ' .. pid .. ', killed: it did not exit when asked); the next dialog starts it again', said,
    'what the user is told')
  ok(not alive(pid), 'pid ' .. pid .. ' is gone')
  c.stopped_pid = nil
  local r = c:wait_done('waiting')
  eq({ 'failed', -32603 }, { r.status, r.error.code }, 'the dialog failed with its wharf')
  contains(r.error.message, 'killed by signal 9', 'how')
  vim.wait(100)
  eq(1, #c:calls('waiting'), 'on_done called once')
end)
