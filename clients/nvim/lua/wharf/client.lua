--- The one Wharf session of this Neovim: the process, started on first use, initialized once,
--- and shut down (`shutdown`, then `exit`) when Neovim exits.
---
--- A session being stopped is detached at once (the next request starts a new one) and lives on
--- until its process ends: its dialogs, which it names with ids the next wharf may use again,
--- stay with it, and end with it.
local config = require('wharf.config')
local rpc = require('wharf.rpc')

local M = {}

--- The running session, or nil: where the next request goes.
---@type table|nil
local session = nil

--- Sessions stopped whose process has not ended yet.
local stopping = {}

local function log(text)
  if session and session.rpc then
    session.rpc.write_log(string.format('[%s] %s\n', os.date('%Y-%m-%d %H:%M:%S'), text))
  end
end
M.log = log

--- The presenter this client's dialogs get, from the `initialize` result: its
--- `capabilities.presenter` when the server says, else what the capabilities imply.
local function effective_presenter(result, presents)
  local caps = (result and result.capabilities) or {}
  if caps.presenter ~= nil then
    return caps.presenter
  end
  if presents then
    return 'frontend'
  end
  for _, name in ipairs(caps.presenters or {}) do
    if name ~= 'frontend' then
      return name
    end
  end
  return nil
end

--- Drops a message no dialog of the plugin's will take, answering it if it is a request.
local function drop(s, id, method, reply)
  if reply then
    reply({ code = rpc.INTERNAL_ERROR, message = 'the Neovim plugin has no dialog ' .. tostring(id) })
  end
  if s.rpc then
    s.rpc.write_log(string.format('[%s] %s for dialog %s, which the plugin does not have: dropped\n',
      os.date('%Y-%m-%d %H:%M:%S'), method, tostring(id)))
  end
end

--- A `presentImporter`/`presentExporter` of session `s` has been answered (or given up on): once
--- none is waiting for its answer, what `s.early` still holds names a dialog no answer will
--- register (one that has ended, or one never presented to the plugin), and is dropped.
local function presented(s)
  s.presenting = s.presenting - 1
  if s.presenting > 0 then
    return
  end
  local left = s.early
  s.early = {}
  for id, events in pairs(left) do
    for _, event in ipairs(events) do
      drop(s, id, event[1], event[3])
    end
  end
end

--- A message from session `s`'s wharf, to the dialog of `s` it names. `s.dialogs` has them by id,
--- `s.early` what arrived for an id before the answer that names it, and `s.abandoned` the ids
--- the plugin gave up on (see `M.abandon`), whose messages are dropped. A message can only come
--- before its dialog's answer while a `present…` request waits for one (`s.presenting`; Wharf
--- answers first unless requests are batched): at any other time, one for an id the plugin does
--- not have (a dialog that has ended, or none it knows) is dropped, not kept for ever.
local function route(s, method, params, reply)
  local id = type(params) == 'table' and params.dialogId or nil
  if not id then
    if reply then
      reply({ code = -32601, message = 'the Neovim plugin does not handle ' .. method })
    end
    return
  end
  if s.abandoned[id] then
    if reply then
      reply({ code = rpc.INTERNAL_ERROR, message = 'the Neovim plugin gave up on dialog ' .. tostring(id) })
    end
    if method == 'dialog/completed' or method == 'dialog/cancelled' then
      s.abandoned[id] = nil
    end
    return
  end
  local dialog = s.dialogs[id]
  if dialog then
    dialog:handle(method, params, reply)
  elseif s.presenting == 0 then
    drop(s, id, method, reply)
  else
    s.early[id] = s.early[id] or {}
    table.insert(s.early[id], { method, params, reply })
  end
end

--- Session `s` is over (its process ended, or was given up): it is forgotten, so the next request
--- starts another, its open dialogs end (`lost`), and requests still waiting for it to start get
--- `message` as their error. Each of these is told once: a second call for `s` does nothing.
local function lose(s, message)
  if s.lost then
    return
  end
  s.lost = true
  if session == s then
    session = nil
  end
  stopping[s] = nil
  local open, waiting = s.dialogs, s.waiting
  s.dialogs, s.early, s.abandoned, s.waiting = {}, {}, {}, {}
  for _, dialog in pairs(open) do
    dialog:lost(message)
  end
  for _, cb in ipairs(waiting) do
    cb({ code = rpc.INTERNAL_ERROR, message = message }, nil)
  end
end

--- Requests whose work is a write to the state store: Wharf waits up to 30 s for a store another
--- process holds locked, then answers saying so, which tells the user more than a timeout would.
local STORE_PATIENCE_MS = 35000
local store_writes = { revokeAccess = true, createBookmark = true, resolveAccess = true }

--- How long `method` may go unanswered (ms), or nil for ever: `request_timeout_ms`, and at
--- least the store's patience for the requests that may wait on it.
function M.deadline(method)
  local configured = config.options.request_timeout_ms
  if not configured then
    return nil
  end
  if store_writes[method] then
    return math.max(configured, STORE_PATIENCE_MS)
  end
  return configured
end

--- Whether `err` says the request outlived its deadline (and was cancelled).
function M.is_timeout(err)
  return type(err) == 'table' and type(err.data) == 'table' and err.data.timeout == true
end

--- Tells the user that Wharf did not answer: the caller only gets an error, and many callers
--- (`cancel`, `dialog/dismiss`) have nobody to show it to. Callers that report errors
--- themselves leave timeouts to this one message. `way_out` says what the user can do: the
--- plugin keeps a session that stopped answering (it may only be slow), and each later request
--- would time out the same way until the user ends it.
local function tell_timeout(err, pid, way_out)
  vim.notify(string.format('wharf: %s (is wharf%s stopped or overloaded?); the request was cancelled%s',
    err.message, pid and (' pid ' .. pid) or '', way_out or ''), vim.log.levels.ERROR)
end

--- What a timeout in a running session tells the user to do about it.
local WAY_OUT = '; :WharfStop ends it, and the next dialog starts a new one'

--- How much of `shutdown_timeout_ms` is SIGTERM's (at most): a Wharf that did not end when asked
--- (`shutdown`, `exit`, its input closed) gets this long to end its dialogs before SIGKILL.
local TERM_GRACE_MS = 500

--- Starts the process and initializes it if that has not happened; `callback(err, session)` runs
--- in the main loop once the session can take requests (at once if it already can).
---@param callback fun(err: table|nil, session: table|nil)
function M.ensure(callback)
  if session and session.ready then
    callback(nil, session)
    return
  end
  if session then
    table.insert(session.waiting, callback)
    return
  end
  local presenter = config.options.presenter
  local presents = presenter ~= 'native'
  local cmd = config.command()
  local started
  local new = {
    waiting = { callback },
    ready = false,
    presenter_setting = presenter,
    cmd = cmd,
    dialogs = {},
    early = {},
    abandoned = {},
    presenting = 0,
  }
  session = new
  local proc, err = rpc.start(cmd, {
    on_notification = function(method, params)
      route(new, method, params, nil)
    end,
    on_request = function(method, params, reply)
      route(new, method, params, reply)
    end,
    on_exit = function(_, _, message)
      lose(new, message)
    end,
  }, { log_file = config.log_file(), trace = config.options.trace })
  if not proc then
    session = nil
    local message = string.format('could not start %s: %s', cmd[1], err)
    vim.schedule(function()
      for _, cb in ipairs(new.waiting) do
        cb({ code = rpc.INTERNAL_ERROR, message = message }, nil)
      end
    end)
    return
  end
  started = proc
  new.rpc = started
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('wharf_session', { clear = true }),
    desc = 'wharf: shutdown and exit',
    callback = function()
      M.stop()
      -- Neovim must not exit before its wharfs have (stopping is done by timers, which run only
      -- while Neovim does), and their dialogs' callers are owed their on_done.
      vim.wait(config.options.shutdown_timeout_ms + rpc.REAP_MS, function()
        return next(stopping) == nil
      end, 10)
    end,
  })
  new.pid = started.pid
  local capabilities = { presentsDialogs = presents }
  if presenter == 'auto' then
    capabilities.prefersDesktopDialogs = true
  end
  local version = vim.version()
  started:request('initialize', {
    processId = vim.fn.getpid(),
    clientInfo = {
      name = config.options.app,
      version = string.format('nvim %d.%d.%d', version.major, version.minor, version.patch),
    },
    capabilities = capabilities,
  }, function(init_err, result)
    if session ~= new then
      return
    end
    local waiting = new.waiting
    new.waiting = {}
    if init_err then
      session = nil
      started:close_stdin()
      if M.is_timeout(init_err) then
        -- A wharf that does not answer `initialize` is of no use, and may never read its
        -- closed input: it is ended, and the next request starts another.
        tell_timeout(init_err, started.pid)
        started:end_within(0, TERM_GRACE_MS)
      end
      for _, cb in ipairs(waiting) do
        cb(init_err, nil)
      end
      return
    end
    started:notify('initialized', vim.empty_dict())
    new.ready = true
    new.init = result
    new.presenter = effective_presenter(result, presents)
    new.presenters = (result and result.capabilities and result.capabilities.presenters) or {}
    log(string.format('initialized: presenter %s, presenters %s', tostring(new.presenter),
      table.concat(new.presenters, ', ')))
    for _, cb in ipairs(waiting) do
      cb(nil, new)
    end
  end, { timeout_ms = M.deadline('initialize') })
end

--- Sends a request once the session is up; `callback(err, result, s)` runs once, in the main
--- loop, `s` being the session it went to. Its deadline (`opts.timeout_ms`, else `M.deadline`)
--- runs from when it is sent: past it, the callback gets an error that `M.is_timeout`
--- recognizes, the user is told (unless `opts.quiet`), and a late answer goes to
--- `opts.on_late(err, result, s)` only. With `opts.session` it goes to that session, never to
--- a new one: a dialog's requests go to the wharf that has the dialog, stopping or not.
---@param opts? {timeout_ms?: integer, on_late?: fun(err: table|nil, result: any, s: table), quiet?: boolean, session?: table}
function M.request(method, params, callback, opts)
  opts = opts or {}
  local function send(err, s)
    if err then
      callback(err, nil)
      return
    end
    local presents = method == 'presentImporter' or method == 'presentExporter'
    if presents then
      s.presenting = s.presenting + 1
    end
    s.rpc:request(method, params, function(req_err, result)
      if M.is_timeout(req_err) and not opts.quiet then
        tell_timeout(req_err, s.pid, WAY_OUT)
      end
      -- The caller registers the dialog (taking what came early for it) before the rest is dropped.
      local ok, err = pcall(callback, req_err, result, s)
      if presents then
        presented(s)
      end
      if not ok then
        error(err, 0)
      end
    end, {
      timeout_ms = opts.timeout_ms or M.deadline(method),
      -- Only while this session lasts: dialog ids mean nothing to the next wharf.
      on_late = opts.on_late and function(late_err, result)
        if not s.lost then
          opts.on_late(late_err, result, s)
        end
      end,
    })
  end
  local s = opts.session
  if not s then
    M.ensure(send)
  elseif s.lost or not s.rpc then
    vim.schedule(function()
      callback({ code = rpc.INTERNAL_ERROR, message = 'wharf is not running' }, nil)
    end)
  else
    send(nil, s)
  end
end

--- Like `request`, but waits (at most `timeout_ms`) and returns `err, result`; the caller
--- reports a timeout.
function M.request_sync(method, params, timeout_ms)
  local done, err, result = false, nil, nil
  timeout_ms = timeout_ms or 5000
  M.request(method, params, function(e, r)
    done, err, result = true, e, r
  end, { timeout_ms = timeout_ms, quiet = true })
  -- The request's own deadline ends the wait; the margin covers a session still starting.
  if not vim.wait(timeout_ms + 1000, function()
    return done
  end, 10) then
    return { code = rpc.INTERNAL_ERROR, message = method .. ': no answer within ' .. timeout_ms .. ' ms' }, nil
  end
  return err, result
end

--- Sends a notification if the session is up (dropped otherwise).
function M.notify(method, params)
  if session and session.ready then
    session.rpc:notify(method, params)
  end
end

--- Files a dialog under its id in its session (`dialog.session`) and hands it whatever already
--- arrived for it.
function M.register(dialog)
  local s = dialog.session
  if s.lost then
    dialog:lost(s.rpc:exit_message())
    return
  end
  s.dialogs[dialog.id] = dialog
  local queued = s.early[dialog.id]
  s.early[dialog.id] = nil
  for _, event in ipairs(queued or {}) do
    dialog:handle(event[1], event[2], event[3])
  end
end

--- Forgets dialog `id` of session `s` for good: its caller has been told it ended (its request
--- timed out), so what Wharf sends for it from now on (its `presenter/show`, its ending) is
--- dropped.
function M.abandon(id, s)
  s.dialogs[id] = nil
  s.early[id] = nil
  s.abandoned[id] = true
end

function M.unregister(dialog)
  local s = dialog.session
  if s and s.dialogs[dialog.id] == dialog then
    s.dialogs[dialog.id] = nil
  end
end

--- The dialogs still open, in the running session and in those being stopped.
function M.open_dialogs()
  local sessions = vim.tbl_keys(stopping)
  if session then
    table.insert(sessions, session)
  end
  local open = {}
  for _, s in ipairs(sessions) do
    vim.list_extend(open, vim.tbl_values(s.dialogs))
  end
  return open
end

--- What `:checkhealth` and callers may want to know; nil fields when nothing is running.
function M.status()
  if not session then
    return { running = false }
  end
  return {
    running = session.rpc ~= nil and session.rpc:is_running(),
    ready = session.ready,
    pid = session.pid,
    cmd = session.cmd,
    presenter = session.presenter,
    presenters = session.presenters,
    server_info = session.init and session.init.serverInfo or nil,
    protocol_version = session.init and session.init.protocolVersion or nil,
    capabilities = session.init and session.init.capabilities or nil,
    log_file = config.log_file(),
  }
end

--- Ends the session without waiting for it, as :LspStop does: `shutdown`, then `exit`, and
--- from timers SIGTERM, then SIGKILL, all within about `timeout_ms` (`shutdown_timeout_ms`;
--- SIGKILL ends even a stopped Wharf). The session is detached at once, so the next dialog starts
--- a new one while this one ends. Its dialogs still open each get their `on_done` once:
--- "disconnected" when Wharf ends them, failed with how the process ended when it had to be
--- killed. Returns the pid being stopped (nil when nothing ran); `on_stopped(pid, how)` runs once
--- it has ended, `how` as `rpc.end_within` says ("exited", "terminated", "killed"; nil if the
--- process is somehow still there).
---@param timeout_ms? integer
---@param on_stopped? fun(pid: integer, how: "exited"|"terminated"|"killed"|nil)
---@return integer|nil pid
function M.stop(timeout_ms, on_stopped)
  local s = session
  if not s or not s.rpc then
    return nil
  end
  timeout_ms = timeout_ms or config.options.shutdown_timeout_ms
  local grace = math.min(TERM_GRACE_MS, math.floor(timeout_ms / 4))
  session = nil
  stopping[s] = true
  if s.ready then
    -- All but the grace may go to waiting for the answer; a Wharf that gives none (stopped,
    -- wedged) gets SIGTERM as the wait ends.
    s.rpc:request('shutdown', nil, function()
      s.rpc:notify('exit', nil)
      s.rpc:close_stdin()
    end, { timeout_ms = math.max(1, timeout_ms - grace) })
  else
    s.rpc:close_stdin()
  end
  s.rpc:end_within(timeout_ms - grace, grace, function(how)
    -- The process's end has already ended the session unless it is somehow still there.
    lose(s, 'wharf was stopped')
    if on_stopped then
      on_stopped(s.pid, how)
    end
  end)
  return s.pid
end

return M
