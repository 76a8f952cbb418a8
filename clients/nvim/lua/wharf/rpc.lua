--- JSON-RPC 2.0 over a child process's standard streams, framed with `Content-Length` headers as
--- in the Language Server Protocol.
---
--- Bytes arrive in libuv callbacks; each whole message is handed to the main loop with
--- `vim.schedule`, one at a time and in the order it arrived, so notifications keep the order the
--- server sent them in. The child's standard error is appended to a log file.
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

--- Starts `cmd` and speaks JSON-RPC with it.
---
--- handlers:
--- - `on_notification(method, params)`
--- - `on_request(method, params, reply)`: `reply(err, result)` answers, once
--- - `on_exit(code, signal, stderr_tail)`
---
---@param cmd string[]
---@param handlers table
---@param opts? {log_file?: string, cwd?: string, env?: table, trace?: boolean}
---@return table|nil rpc
---@return string|nil err
function M.start(cmd, handlers, opts)
  opts = opts or {}
  local self = setmetatable({
    next_id = 1,
    pending = {}, -- id -> {callback, method, timer?, on_late?}
    late = {}, -- id -> {method, on_late?}: requests given up on, whose answer may still come
    handlers = handlers,
    buffer = '',
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

  local ok, proc = pcall(vim.system, cmd, {
    stdin = true,
    text = false,
    cwd = opts.cwd,
    env = opts.env,
    stdout = function(err, data)
      if err then
        write_log(string.format('[%s] reading wharf: %s\n', now(), err))
      end
      if data then
        self:_receive(data)
      end
    end,
    stderr = function(_, data)
      if data then
        write_log(data)
        -- Keep the last lines, to explain an early exit.
        table.insert(self.stderr_tail, data)
        if #self.stderr_tail > 20 then
          table.remove(self.stderr_tail, 1)
        end
      end
    end,
  }, function(result)
    self.exit_code = result.code
    self.exit_signal = result.signal
    write_log(string.format('[%s] %s\n', now(), ending(result.code, result.signal)))
    vim.schedule(function()
      self:_closed()
    end)
  end)
  if not ok then
    write_log(string.format('[%s] could not start: %s\n', now(), tostring(proc)))
    if log_file then
      pcall(log_file.close, log_file)
    end
    return nil, tostring(proc)
  end
  self.proc = proc
  self.pid = proc.pid
  return self
end

--- Parses whole frames out of what has arrived (runs in a libuv callback: no Neovim API here).
function Rpc:_receive(data)
  self.buffer = self.buffer .. data
  while true do
    local header_end = self.buffer:find('\r\n\r\n', 1, true)
    if not header_end then
      return
    end
    local header = self.buffer:sub(1, header_end - 1)
    local length = tonumber(header:match('[Cc][Oo][Nn][Tt][Ee][Nn][Tt]%-[Ll][Ee][Nn][Gg][Tt][Hh]%s*:%s*(%d+)'))
    if not length then
      -- Not a header block we understand: drop it and look for the next one.
      self.buffer = self.buffer:sub(header_end + 4)
    else
      local body_start = header_end + 4
      if #self.buffer < body_start + length - 1 then
        return
      end
      local body = self.buffer:sub(body_start, body_start + length - 1)
      self.buffer = self.buffer:sub(body_start + length)
      vim.schedule(function()
        self:_dispatch(body)
      end)
    end
  end
end

local function decode(body)
  return pcall(vim.json.decode, body, { luanil = { object = true, array = true } })
end

--- With `trace`, every message in and out is logged (the first 2000 bytes of each).
function Rpc:_trace(direction, body)
  if self.trace then
    self.write_log(string.format('[%s] %s %s\n', now(), direction, #body > 2000 and (body:sub(1, 2000) .. '…') or body))
  end
end

function Rpc:_dispatch(body)
  self:_trace('<-', body)
  local ok, msg = decode(body)
  if not ok or type(msg) ~= 'table' then
    self.write_log(string.format('[%s] unreadable message from wharf: %s\n', now(), body:sub(1, 200)))
    return
  end
  if msg.method then
    if msg.id ~= nil then
      local answered = false
      local function reply(err, result)
        if answered then
          return
        end
        answered = true
        if err then
          self:_send({ jsonrpc = '2.0', id = msg.id, error = err })
        else
          self:_send({ jsonrpc = '2.0', id = msg.id, result = result == nil and vim.NIL or result })
        end
      end
      local handled, err = pcall(self.handlers.on_request, msg.method, msg.params, reply)
      if not handled then
        reply({ code = M.INTERNAL_ERROR, message = tostring(err) })
      end
    else
      local handled, err = pcall(self.handlers.on_notification, msg.method, msg.params)
      if not handled then
        self.write_log(string.format('[%s] handling %s: %s\n', now(), msg.method, tostring(err)))
        vim.notify('wharf: ' .. tostring(err), vim.log.levels.ERROR)
      end
    end
  elseif msg.id ~= nil then
    if msg.error then
      self:_answered(msg.id, msg.error, nil)
    else
      self:_answered(msg.id, nil, msg.result)
    end
  end
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

--- An answer came: to a waiting request (its callback, once), or to one given up on (dropped,
--- but its `on_late` hears of it: a dialog presented after all must be ended).
function Rpc:_answered(id, err, result)
  local entry = self.pending[id]
  if entry then
    self.pending[id] = nil
    drop_timer(entry)
    entry.callback(err, result)
    return
  end
  local late = self.late[id]
  if late then
    self.late[id] = nil
    self.write_log(string.format('[%s] late answer to %s (id %s) after its deadline: dropped\n', now(), late.method,
      tostring(id)))
    if late.on_late then
      local ok, late_err = pcall(late.on_late, err, result)
      if not ok then
        self.write_log(string.format('[%s] handling the late answer to %s: %s\n', now(), late.method, tostring(late_err)))
      end
    end
  end
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

--- The request's deadline passed: it is given up on (Wharf is asked to cancel it, so that it
--- presents no dialog the app never hears of) and its callback gets a timeout error, once.
function Rpc:_expire(id)
  local entry = self.pending[id]
  if not entry then
    return
  end
  self.pending[id] = nil
  drop_timer(entry)
  self.late[id] = { method = entry.method, on_late = entry.on_late }
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

function Rpc:_send(msg)
  if self.closed then
    return false
  end
  local ok, body = pcall(vim.json.encode, msg)
  if not ok then
    return false, body
  end
  self:_trace('->', body)
  local wrote, err = pcall(self.proc.write, self.proc, 'Content-Length: ' .. #body .. '\r\n\r\n' .. body)
  if not wrote then
    return false, tostring(err)
  end
  return true
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
  local id = self.next_id
  self.next_id = id + 1
  if self.closed then
    vim.schedule(function()
      callback({ code = M.INTERNAL_ERROR, message = self:exit_message() }, nil)
    end)
    return nil
  end
  local entry = { callback = callback, method = method, timeout_ms = opts.timeout_ms, on_late = opts.on_late }
  self.pending[id] = entry
  local ok, err = self:_send({ jsonrpc = '2.0', id = id, method = method, params = params or vim.empty_dict() })
  if not ok then
    self.pending[id] = nil
    vim.schedule(function()
      callback({ code = M.INTERNAL_ERROR, message = 'could not send ' .. method .. ': ' .. tostring(err) }, nil)
    end)
    return nil
  end
  if entry.timeout_ms then
    self:_arm(id, entry)
  end
  return id
end

---@param method string
---@param params table|nil
function Rpc:notify(method, params)
  return self:_send({ jsonrpc = '2.0', method = method, params = params or vim.empty_dict() })
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

function Rpc:_closed()
  if self.closed then
    return
  end
  self.closed = true
  local pending = self.pending
  self.pending = {}
  self.late = {}
  local message = self:exit_message()
  for _, entry in pairs(pending) do
    drop_timer(entry)
    pcall(entry.callback, { code = M.INTERNAL_ERROR, message = message }, nil)
  end
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
    local delay, ending, signal = unpack(stages[stage])
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
      how = ending
      pcall(self.proc.kill, self.proc, signal)
      next_stage()
    end)
  end
  next_stage()
end

return M
