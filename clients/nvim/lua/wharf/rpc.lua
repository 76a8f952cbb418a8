--- JSON-RPC 2.0 with a `wharf` child process, on Neovim's own LSP client: `vim.lsp.rpc.start`
--- spawns the process and speaks to it over its standard streams, frames every message with
--- `Content-Length` headers, and dispatches what arrives (answers to their callbacks,
--- notifications, requests from the server) to the main loop, one at a time and in the order it
--- arrived, so notifications keep the order the server sent them in.
---
--- What `vim.lsp.rpc` does not do, and this module adds, each marked "Not in vim.lsp.rpc" below:
--- - deadlines: a request unanswered in time is cancelled (`$/cancelRequest`) and its callback
---   told, once; its late answer is dropped after `on_late` has seen it;
--- - an answer `-32800` (requestCancelled): `vim.lsp.rpc` never hands one to the callback;
--- - the process: its pid, SIGKILL, closing its input, its standard error (kept for the log and
---   for saying why it ended; `vim.lsp.rpc` writes it to the LSP log);
--- - requests still waiting when the process ends get an error (`vim.lsp.rpc` forgets them);
--- - a request from the server answered later (`reply` called after its handler returned);
--- - JSON `null` read as nil, as the plugin's code expects (`vim.lsp.rpc` gives `vim.NIL`);
--- - the plugin's log, and with `trace` every message in it.
local M = {}

local Rpc = {}
Rpc.__index = Rpc

--- The code the plugin itself uses for a request that never got an answer (the process ended)
--- and for its own failures: JSON-RPC's internal error.
M.INTERNAL_ERROR = -32603

--- What a request that outlived its deadline gets: it was cancelled (`$/cancelRequest`), and
--- this is the code Wharf answers a cancelled request with. `data.timeout` tells it from a
--- cancellation Wharf decided itself.
M.REQUEST_CANCELLED = -32800

local function now()
  return os.date('%Y-%m-%d %H:%M:%S')
end

--- How the process ended, in words. A process a signal killed has no exit status (libuv reports
--- it as 0), so the signal is what to say.
local function ending(code, signal)
  if signal and signal ~= 0 then
    return 'wharf was killed by signal ' .. signal
  end
  return 'wharf exited with status ' .. tostring(code)
end

--- Opens the log for appending; returns a function that writes a line to it (safe in a libuv
--- callback: it uses only Lua's io library).
local function open_log(path)
  if not path then
    return function() end
  end
  local dir = vim.fs.dirname(path)
  if dir and vim.fn.isdirectory(dir) == 0 then
    vim.fn.mkdir(dir, 'p')
  end
  local file = io.open(path, 'a')
  if not file then
    return function() end
  end
  file:setvbuf('line')
  return function(text)
    pcall(function()
      file:write(text)
      file:flush()
    end)
  end,
    file
end

--- Not in vim.lsp.rpc: JSON `null` as nil. `vim.lsp.rpc` decodes `null` as `vim.NIL`, a value
--- that is true in a test (Neovim 0.10 only in arrays, later ones everywhere); the plugin reads
--- a member that is null as one left out, as JSON-RPC's peers mean it. Changes `value` in place.
local function without_nulls(value)
  if value == vim.NIL then
    return nil
  end
  if type(value) == 'table' then
    for key, member in pairs(value) do
      if member == vim.NIL then
        value[key] = nil
      elseif type(member) == 'table' then
        without_nulls(member)
      end
    end
  end
  return value
end
M.without_nulls = without_nulls

--- Not in vim.lsp.rpc: the process. `vim.lsp.rpc.start` keeps the process it spawns to itself
--- (no pid, SIGTERM only, no way to close its input) and writes its standard error to the LSP
--- log. It spawns it with `vim.system`, within the call: for that call alone `vim.system` is
--- wrapped, to keep the process object and to take its standard error (`on_stderr`, run in a
--- libuv callback). Returns the client and the process, or nil and why not.
local function spawn(cmd, dispatchers, on_stderr)
  local system = vim.system
  local proc, spawn_err
  vim.system = function(argv, opts, on_exit)
    opts = vim.tbl_extend('force', opts or {}, { stderr = on_stderr })
    local ok, obj = pcall(system, argv, opts, on_exit)
    if not ok then
      spawn_err = obj
      error(obj, 0)
    end
    proc = obj
    return obj
  end
  -- The module alone: `vim.lsp` would load the whole LSP client, several times as long.
  local ok, client = pcall(require('vim.lsp.rpc').start, cmd, dispatchers)
  vim.system = system
  if not ok then
    return nil, nil, tostring(spawn_err or client)
  end
  if not proc then
    pcall(client.terminate)
    return nil, nil, 'this Neovim\'s vim.lsp.rpc.start does not spawn with vim.system'
  end
  return client, proc
end

--- Starts `cmd` and speaks JSON-RPC with it.
---
--- handlers:
--- - `on_notification(method, params)`
--- - `on_request(method, params, reply)`: `reply(err, result)` answers, once, now or later;
---   `err.code` must be one of `vim.lsp.protocol.ErrorCodes` (vim.lsp.rpc sends no other)
--- - `on_exit(code, signal, message)`: `message` says how it ended, with its last words on stderr
---
---@param cmd string[]
---@param handlers table
---@param opts? {log_file?: string, trace?: boolean}
---@return table|nil rpc
---@return string|nil err
function M.start(cmd, handlers, opts)
  opts = opts or {}
  local self = setmetatable({
    -- id -> {callback, method, timeout_ms?, timer?, on_late?, expired?, replied?, answered?}
    pending = {},
    handlers = handlers,
    closed = false,
    on_closed = {}, -- functions run once the process's end has been handled
    exit_code = nil,
    exit_signal = nil,
    stderr_tail = {},
  }, Rpc)
  local write_log, log_file = open_log(opts.log_file)
  self.write_log = write_log
  self.trace = opts.trace
  self.log_file = log_file
  write_log(string.format('[%s] starting %s\n', now(), table.concat(cmd, ' ')))

  local function on_stderr(_, data)
    if data then
      self.write_log(data)
      -- Keep the last lines, to explain an early exit.
      table.insert(self.stderr_tail, data)
      if #self.stderr_tail > 20 then
        table.remove(self.stderr_tail, 1)
      end
    end
  end

  local client, proc, err = spawn(cmd, {
    notification = function(method, params)
      self:_notification(method, params)
    end,
    server_request = function(method, params)
      return self:_server_request(method, params)
    end,
    on_exit = function(code, signal)
      -- A libuv callback, run once the process's output has all been read.
      self.exit_code = code
      self.exit_signal = signal
      self.write_log(string.format('[%s] %s\n', now(), ending(code, signal)))
      vim.schedule(function()
        self:_closed()
      end)
    end,
    on_error = function(kind, detail)
      local name = require('vim.lsp.rpc').client_errors[kind]
      self.write_log(string.format('[%s] vim.lsp.rpc: %s: %s\n', now(), tostring(name), vim.inspect(detail)))
    end,
  }, on_stderr)
  if not client then
    write_log(string.format('[%s] could not start: %s\n', now(), err))
    if log_file then
      pcall(log_file.close, log_file)
    end
    return nil, err
  end
  self.client = client
  self.proc = proc
  self.pid = proc.pid
  return self
end

--- With `trace`, every message in and out is logged (the first 2000 bytes of each).
function Rpc:_trace(direction, msg)
  if self.trace then
    local ok, body = pcall(vim.json.encode, msg)
    body = ok and body or vim.inspect(msg)
    self.write_log(string.format('[%s] %s %s\n', now(), direction, #body > 2000 and (body:sub(1, 2000) .. '…') or body))
  end
end

function Rpc:_notification(method, params)
  self:_trace('<-', { method = method, params = params })
  local handled, err = pcall(self.handlers.on_notification, method, without_nulls(params))
  if not handled then
    self.write_log(string.format('[%s] handling %s: %s\n', now(), method, tostring(err)))
    vim.notify('wharf: ' .. tostring(err), vim.log.levels.ERROR)
  end
end

--- A request from the server. `vim.lsp.rpc` sends what the dispatcher returns, and runs it in a
--- coroutine of its own for each request.
---
--- Not in vim.lsp.rpc: an answer given later. The handler may keep `reply` and call it after it
--- has returned (a dialog's `exporter/snapshot` that came before the answer naming the dialog);
--- until then the dispatcher's coroutine waits, as Neovim's own `window/showMessageRequest`
--- handler does for the user's choice.
function Rpc:_server_request(method, params)
  self:_trace('<-', { method = method, params = params })
  local co = coroutine.running()
  local answer, waiting = nil, false
  local function reply(err, result)
    if answer then
      return
    end
    answer = { err, result }
    if waiting then
      waiting = false
      local resumed, resume_err = coroutine.resume(co)
      if not resumed then
        self.write_log(string.format('[%s] answering %s: %s\n', now(), method, tostring(resume_err)))
      end
    end
  end
  local handled, err = pcall(self.handlers.on_request, method, without_nulls(params), reply)
  if not handled then
    reply({ code = M.INTERNAL_ERROR, message = tostring(err) })
  end
  if not answer then
    waiting = true
    coroutine.yield()
  end
  local reply_err, result = answer[1], answer[2]
  self:_trace('->', { answer = method, error = reply_err, result = result })
  if reply_err then
    return nil, reply_err
  end
  return result == nil and vim.NIL or result
end

--- Stops and closes a request's timer (each request has its own: closed, not left to the GC).
local function drop_timer(entry)
  local timer = entry.timer
  entry.timer = nil
  if timer and not timer:is_closing() then
    timer:stop()
    timer:close()
  end
end

--- Request `id` is answered (or can no longer be): its callback gets the answer, once, unless it
--- was given up on (its deadline passed); then the answer is dropped, but `on_late` hears of
--- it: a dialog presented after all must be ended.
function Rpc:_settle(id, err, result)
  local entry = self.pending[id]
  if not entry then
    return
  end
  self.pending[id] = nil
  drop_timer(entry)
  if not entry.expired then
    entry.callback(err, result)
    return
  end
  self.write_log(string.format('[%s] late answer to %s (id %s) after its deadline: dropped\n', now(), entry.method,
    tostring(id)))
  if entry.on_late then
    local ok, late_err = pcall(entry.on_late, err, result)
    if not ok then
      self.write_log(string.format('[%s] handling the late answer to %s: %s\n', now(), entry.method, tostring(late_err)))
    end
  end
end

--- Not in vim.lsp.rpc: an answer -32800. `vim.lsp.rpc` takes one for the acknowledgement of a
--- cancellation of its own and drops the request's callback; Wharf answers so to a request
--- cancelled by `$/cancelRequest` and to one still unanswered as its session ends, and the
--- callback must hear of it. Its `notify_reply_callback` still runs for every answer, scheduled
--- just before the callback; what follows both in the main loop finds the request unanswered
--- only if the answer was -32800, whose message `vim.lsp.rpc` keeps to itself.
local function withheld(entry)
  return {
    code = M.REQUEST_CANCELLED,
    message = string.format('wharf cancelled %s', entry.method),
  }
end

function Rpc:_replied(id)
  local entry = self.pending[id]
  if not entry then
    return
  end
  entry.replied = true
  vim.schedule(function()
    if self.pending[id] == entry and not entry.answered then
      self:_trace('<-', { id = id, error = withheld(entry) })
      self:_settle(id, withheld(entry), nil)
    end
  end)
end

local function duration(ms)
  if ms % 1000 == 0 then
    return string.format('%d s', ms / 1000)
  end
  return ms .. ' ms'
end
M.duration = duration

local function timeout_error(method, ms)
  return {
    code = M.REQUEST_CANCELLED,
    message = string.format('wharf did not answer %s within %s', method, duration(ms)),
    data = { timeout = true, method = method, timeoutMs = ms },
  }
end

--- Not in vim.lsp.rpc: deadlines. The request's deadline passed: it is given up on (Wharf is
--- asked to cancel it, so that it presents no dialog the app never hears of) and its callback
--- gets a timeout error, once.
function Rpc:_expire(id)
  local entry = self.pending[id]
  if not entry or entry.expired then
    return
  end
  drop_timer(entry)
  entry.expired = true
  self.write_log(string.format('[%s] no answer to %s (id %s) within %s: cancelling it\n', now(), entry.method,
    tostring(id), duration(entry.timeout_ms)))
  self:notify('$/cancelRequest', { id = id })
  entry.callback(timeout_error(entry.method, entry.timeout_ms), nil)
end

--- Starts the request's deadline. The timer fires in a libuv callback, where the callback may
--- not run: the expiry is handed to the main loop, and does nothing if the answer won the race.
function Rpc:_arm(id, entry)
  local timer = vim.uv.new_timer()
  if not timer then
    return
  end
  entry.timer = timer
  timer:start(entry.timeout_ms, 0, function()
    vim.schedule(function()
      if self.pending[id] == entry then
        self:_expire(id)
      end
    end)
  end)
end

--- Sends a request; `callback(err, result)` is called once, in the main loop: with the answer,
--- or with an error if the process ends first, the message could not be sent, or no answer came
--- within `opts.timeout_ms` (then the request is cancelled, and an answer that comes afterwards
--- is dropped, after `opts.on_late(err, result)` has seen it).
---@param method string
---@param params table|nil
---@param callback fun(err: table|nil, result: any)
---@param opts? {timeout_ms?: integer, on_late?: fun(err: table|nil, result: any)}
---@return integer|nil id
function Rpc:request(method, params, callback, opts)
  opts = opts or {}
  local function fail(message)
    vim.schedule(function()
      callback({ code = M.INTERNAL_ERROR, message = message }, nil)
    end)
  end
  if self.closed then
    fail(self:exit_message())
    return nil
  end
  local entry = { callback = callback, method = method, timeout_ms = opts.timeout_ms, on_late = opts.on_late }
  params = params or vim.empty_dict()
  local id
  local called, sent, message_id = pcall(self.client.request, method, params, function(err, result)
    entry.answered = true
    if err then
      self:_trace('<-', { id = id, error = err })
      err = without_nulls(setmetatable(err, nil))
    else
      self:_trace('<-', { id = id, result = result })
    end
    self:_settle(id, err, without_nulls(result))
  end, function(replied_id)
    self:_replied(replied_id)
  end)
  if not called or not sent then
    fail('could not send ' .. method .. ': ' .. (called and 'wharf\'s input is closed' or tostring(sent)))
    return nil
  end
  id = message_id
  self:_trace('->', { id = id, method = method, params = params })
  self.pending[id] = entry
  if entry.timeout_ms then
    self:_arm(id, entry)
  end
  return id
end

---@param method string
---@param params table|nil
function Rpc:notify(method, params)
  if self.closed then
    return false
  end
  params = params or vim.empty_dict()
  self:_trace('->', { method = method, params = params })
  local called, sent = pcall(self.client.notify, method, params)
  return called and sent
end

function Rpc:is_running()
  return not self.closed
end

--- Why the process is gone, for error messages: its status and its last words on stderr.
function Rpc:exit_message()
  local text = 'wharf is not running'
  if self.exit_code then
    text = ending(self.exit_code, self.exit_signal)
  end
  local tail = vim.trim(table.concat(self.stderr_tail))
  if tail ~= '' then
    local lines = vim.split(tail, '\n')
    text = text .. ': ' .. table.concat(vim.list_slice(lines, math.max(1, #lines - 2)), ' ')
  end
  return text
end

--- Not in vim.lsp.rpc: the requests still waiting when the process ends get an error (an answer
--- -32800 that came just before is theirs), its dialogs' owners are told, and the log is closed.
function Rpc:_closed()
  if self.closed then
    return
  end
  self.closed = true
  local pending = self.pending
  local message = self:exit_message()
  for id, entry in pairs(pending) do
    if entry.expired then
      pending[id] = nil
      drop_timer(entry)
    end
  end
  for id, entry in pairs(pending) do
    self:_settle(id, (entry.replied and not entry.answered) and withheld(entry) or { code = M.INTERNAL_ERROR, message = message }, nil)
  end
  self.pending = {}
  if self.handlers.on_exit then
    pcall(self.handlers.on_exit, self.exit_code, self.exit_signal, message)
  end
  for _, fn in ipairs(self.on_closed) do
    pcall(fn)
  end
  if self.log_file then
    pcall(self.log_file.close, self.log_file)
    self.log_file = nil
    self.write_log = function() end
  end
end

--- Closes the process's standard input (it then ends, as `exit` would without `shutdown`).
function Rpc:close_stdin()
  if self.proc and not self.closed then
    pcall(self.proc.write, self.proc, nil)
  end
end

--- How long a process SIGKILL ended may take to be reaped (its exit seen): the kernel ends it at
--- once, stopped or not, so this is only the event loop's turn.
M.REAP_MS = 1000

--- Ends the process unless it has ended by itself `after_ms` from now: SIGTERM then (Wharf ends
--- its dialogs and exits), and SIGKILL `grace_ms` later. SIGTERM alone is not enough: a stopped
--- process (SIGSTOP, a debugger) acts on it only once it goes on, which may be never, while
--- SIGKILL ends it even stopped. Does not wait: the signals are sent from a timer, and
--- `on_end(how)` runs once, in the main loop, after the process's end has been handled
--- (`_closed`: what it sent before, a dialog's `dialog/cancelled`, has been handled first), `how`
--- being what ended it: "exited", "terminated" (SIGTERM) or "killed" (SIGKILL); nil if even
--- SIGKILL has not ended it `REAP_MS` later.
---@param after_ms integer
---@param grace_ms integer
---@param on_end? fun(how: "exited"|"terminated"|"killed"|nil)
function Rpc:end_within(after_ms, grace_ms, on_end)
  on_end = on_end or function() end
  if self.closed or not self.proc then
    vim.schedule(function()
      on_end('exited')
    end)
    return
  end
  local timer = assert(vim.uv.new_timer())
  local how, done = 'exited', false
  local function finish(result)
    if not done then
      done = true
      timer:stop()
      timer:close()
      on_end(result)
    end
  end
  table.insert(self.on_closed, function()
    finish(how)
  end)
  local stages = {
    { after_ms, 'terminated', 'sigterm' },
    { grace_ms, 'killed', 'sigkill' },
    { M.REAP_MS },
  }
  local stage = 0
  local function next_stage()
    stage = stage + 1
    local delay, ended_by, signal = unpack(stages[stage])
    timer:start(delay, 0, function()
      -- A libuv callback: signals may be sent here, the rest is for the main loop.
      if self.exit_code ~= nil then
        return -- it has ended: `_closed` is on its way, and calls `finish`
      end
      if not signal then
        vim.schedule(function()
          finish(nil)
        end)
        return
      end
      how = ended_by
      pcall(self.proc.kill, self.proc, signal)
      next_stage()
    end)
  end
  next_stage()
end

return M
