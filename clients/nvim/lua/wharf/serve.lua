--- `:WharfServeDesktop`: this Neovim as the Wharf daemon's presenter connection. It draws, in
--- its own picker, the dialogs of every app that asks the daemon and does not draw its own, and
--- so, through `wharf portal`, of every app that asks the desktop's portal for a file; until
--- Neovim exits or `:WharfServeDesktopStop` stops it.
---
--- The connection is a `wharf --connect` bridge (it starts the daemon when none listens), a
--- session of its own beside the plugin's: the plugin's own dialogs keep going to the wharf it
--- starts for them. Only the presenter answers the dialogs it is shown, so each one here is
--- answered over this connection (`dialog/list`, `dialog/choose`, `dialog/dismiss`,
--- `dialog/fail`), and ends for the app that asked it, not for this Neovim.
local client = require('wharf.client')
local config = require('wharf.config')
local rpc = require('wharf.rpc')
local url = require('wharf.url')

local M = {}

local PRESENTER_REFUSED = -32018
local DIALOG_NOT_FOUND = -32013
local DIALOG_ENDED = -32014

--- How much of `shutdown_timeout_ms` SIGTERM gets at most, as for the plugin's own session.
local TERM_GRACE_MS = 500

--- The connection: `{rpc, pid, ready, dialogs, init, since}`, or nil when this Neovim serves
--- nothing.
local serving = nil
--- A connection being stopped, with what is to run once it has ended (`after`).
local stopping = nil

local function notify(text, level)
  vim.notify('wharf: ' .. text, level or vim.log.levels.INFO)
end

local function log(s, text)
  if s.rpc then
    s.rpc.write_log(string.format('[%s] serving the desktop: %s\n', os.date('%Y-%m-%d %H:%M:%S'), text))
  end
end

--- Who asks, for people: the name the app gave, and the app the daemon established from its
--- process (its Flatpak id, its Snap, its executable's name), as `presenter/show`'s `client`
--- says. A call through `wharf portal` is named `portal:APP_ID` by the portal, whose process
--- is wharf's: the app id is what tells people who asks.
function M.describe(who)
  if type(who) ~= 'table' then
    return 'an app'
  end
  local name = type(who.name) == 'string' and who.name ~= '' and who.name or nil
  local app = type(who.app) == 'string' and who.app or nil
  local short = app
  if app then
    local kind, rest = app:match('^(%a+):(.*)$')
    if kind == 'exe' then
      local path = url.to_path('file://' .. rest) or rest
      short = path:match('([^/]*)$')
    elseif kind == 'flatpak' or kind == 'snap' then
      short = rest
    end
  end
  if name and name:sub(1, 7) == 'portal:' then
    local id = name:sub(8)
    return (id == 'host' and 'an unsandboxed app' or id) .. ' (portal)'
  end
  if name and short and name ~= short then
    return name .. ' (' .. short .. ')'
  end
  return name or short or 'an app'
end

-- MARK: A dialog drawn here for another app

--- What the picker needs of a dialog (`id`, `done`, `request`, `give_up_if_timeout`), for one
--- that another app asked for: its answers go over the presenter connection, and it ends here
--- when the picker has answered it, when the app takes it back (`presenter/hide`), or with the
--- connection.
local Served = {}
Served.__index = Served

function Served:close_picker()
  local picker = self.picker
  self.picker = nil
  if picker then
    picker:close()
  end
end

--- The dialog is over as far as this Neovim is concerned: its window goes.
function Served:finish()
  if self.done then
    return
  end
  self.done = true
  if self.serving.dialogs[self.id] == self then
    self.serving.dialogs[self.id] = nil
  end
  self:close_picker()
end

local ends_dialog = { ['dialog/choose'] = true, ['dialog/dismiss'] = true, ['dialog/fail'] = true }

--- Sends a request about this dialog over the presenter connection. An answer that ends the
--- dialog (a choice taken, a dismissal, a failure) or says it has ended finishes it here.
function Served:request(method, params, callback)
  local s = self.serving
  if s.rpc.closed then
    vim.schedule(function()
      callback({ code = rpc.INTERNAL_ERROR, message = 'the presenter connection has ended' }, nil)
    end)
    return
  end
  s.rpc:request(method, params, function(err, result)
    if client.is_timeout(err) then
      notify(string.format('%s (is the daemon stopped or overloaded?)', err.message), vim.log.levels.ERROR)
    end
    local ended = err and (err.code == DIALOG_ENDED or err.code == DIALOG_NOT_FOUND)
    if (not err and ends_dialog[method]) or ended then
      self.done = true
      if s.dialogs[self.id] == self then
        s.dialogs[self.id] = nil
      end
    end
    callback(err, result)
  end, { timeout_ms = client.deadline(method) })
end

--- A request that was to end the dialog got no answer in time: the window goes, and what the
--- daemon says of the dialog later finds nothing here.
function Served:give_up_if_timeout(err)
  if client.is_timeout(err) then
    self:finish()
  end
end

local function show(s, params)
  local id = params.dialogId
  local dialog = s.dialogs[id]
  if dialog then
    dialog:close_picker()
  else
    dialog = setmetatable({ id = id, serving = s, done = false }, Served)
    s.dialogs[id] = dialog
  end
  dialog.show = params
  dialog.client = params.client
  dialog.asker = M.describe(params.client)
  log(s, string.format('dialog %s of %s', tostring(id), dialog.asker))
  dialog.picker = require('wharf.picker').open(dialog, params)
end

local function hide(s, params)
  local dialog = s.dialogs[params.dialogId]
  if dialog then
    notify(dialog.asker .. ' took its dialog back')
    dialog:finish()
  end
end

--- Every dialog shown here ends here (the daemon ends them for their apps).
local function close_all(s)
  local open = s.dialogs
  s.dialogs = {}
  for _, dialog in pairs(open) do
    dialog:finish()
  end
end

-- MARK: Starting and stopping

--- The bridge's command: the plugin's `cmd` (its options go to the daemon it may start).
local function bridge_command()
  local cmd = vim.deepcopy(config.options.cmd)
  table.insert(cmd, '--connect')
  return cmd
end

--- The connection ended (the bridge exited): by `stop`, or by itself (the daemon stopped).
local function ended(s, message)
  close_all(s)
  if serving == s then
    serving = nil
    if s.ready then
      notify('this Neovim no longer serves the desktop: ' .. message, vim.log.levels.WARN)
    end
  end
end

local function leave_with_neovim()
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('wharf_serve', { clear = true }),
    desc = 'wharf: stop serving the desktop',
    callback = function()
      M.stop()
      -- Timers do the stopping, and they run only while Neovim does.
      vim.wait(config.options.shutdown_timeout_ms + rpc.REAP_MS, function()
        return stopping == nil
      end, 10)
    end,
  })
end

--- Starts serving: connects to the daemon (starting it if none listens) and registers as its
--- presenter. `on_done(err)` runs once it serves (`err` nil) or could not (`err.message` says
--- why; `err.code` is -32018, presenterRefused, when another presenter serves). Says what
--- happened, too.
---@param on_done? fun(err: table|nil)
function M.start(on_done)
  on_done = on_done or function() end
  if stopping then
    table.insert(stopping.after, function()
      M.start(on_done)
    end)
    return
  end
  if serving then
    if serving.ready then
      notify(string.format('this Neovim serves the desktop already (wharf pid %d)', serving.pid))
      vim.schedule(function()
        on_done(nil)
      end)
    else
      table.insert(serving.waiting, on_done)
    end
    return
  end
  local s = { dialogs = {}, ready = false, waiting = { on_done } }
  local function settle(err)
    local waiting = s.waiting
    s.waiting = {}
    for _, cb in ipairs(waiting) do
      cb(err)
    end
  end
  s.settle = settle
  local function refuse(err)
    if serving == s then
      serving = nil
    end
    local why = err.message or vim.inspect(err)
    notify('this Neovim cannot serve the desktop: ' .. why, vim.log.levels.ERROR)
    settle(err)
  end
  local cmd = bridge_command()
  local started, start_err = rpc.start(cmd, {
    on_notification = function(method, params)
      if method == 'presenter/show' and type(params) == 'table' then
        -- Not on a connection being stopped: the daemon fails its dialogs as it goes.
        if serving == s then
          show(s, params)
        end
      elseif method == 'presenter/hide' and type(params) == 'table' then
        hide(s, params)
      end
    end,
    on_request = function(method, _, reply)
      reply({ code = -32601, message = 'the Neovim presenter does not handle ' .. method })
    end,
    on_exit = function(_, _, message)
      if not s.ready and #s.waiting > 0 then
        refuse({ code = rpc.INTERNAL_ERROR, message = message })
      end
      ended(s, message)
    end,
  }, { log_file = config.log_file(), trace = config.options.trace })
  if not started then
    vim.schedule(function()
      refuse({ code = rpc.INTERNAL_ERROR, message = string.format('could not start %s: %s', cmd[1], start_err) })
    end)
    return
  end
  s.rpc = started
  s.pid = started.pid
  serving = s
  leave_with_neovim()
  local version = vim.version()
  started:request('initialize', {
    processId = vim.fn.getpid(),
    clientInfo = {
      name = config.options.app,
      version = string.format('nvim %d.%d.%d', version.major, version.minor, version.patch),
    },
    role = 'presenter',
    capabilities = vim.empty_dict(),
  }, function(err, result)
    if serving ~= s then
      return
    end
    if err then
      -- Refused (another presenter serves) or no daemon: the bridge goes, its session
      -- uninitialized; nothing was registered.
      refuse(err)
      started:close_stdin()
      started:end_within(config.options.shutdown_timeout_ms, TERM_GRACE_MS)
      return
    end
    started:notify('initialized', vim.empty_dict())
    s.ready = true
    s.init = result
    s.since = os.time()
    log(s, 'registered as the daemon\'s presenter connection')
    -- One short line: a longer one would stop Neovim at a hit-enter prompt, and the dialogs
    -- arriving meanwhile would wait for a key.
    notify('this Neovim draws every app\'s dialogs now')
    settle(nil)
  end, { timeout_ms = client.deadline('initialize') })
end

--- Stops serving: the daemon's dialogs shown here end (their apps are told the presenter went
--- away), and the next app's dialog goes to the next presenter, or to the daemon's own.
--- `on_stopped()` runs once the connection has ended. Returns false when nothing was served.
---@param on_stopped? fun()
---@return boolean
function M.stop(on_stopped)
  local s = serving
  if not s then
    if stopping and on_stopped then
      table.insert(stopping.after, on_stopped)
    elseif on_stopped then
      vim.schedule(on_stopped)
    end
    return stopping ~= nil
  end
  serving = nil
  local entry = { after = { on_stopped } }
  stopping = entry
  close_all(s)
  if not s.ready then
    s.settle({ code = rpc.INTERNAL_ERROR, message = 'stopped before the daemon answered' })
  end
  local timeout_ms = config.options.shutdown_timeout_ms
  local grace = math.min(TERM_GRACE_MS, math.floor(timeout_ms / 4))
  if s.ready then
    s.rpc:request('shutdown', nil, function()
      s.rpc:notify('exit', nil)
      s.rpc:close_stdin()
    end, { timeout_ms = math.max(1, timeout_ms - grace) })
  else
    s.rpc:close_stdin()
  end
  s.rpc:end_within(timeout_ms - grace, grace, function()
    stopping = nil
    if s.ready then
      notify('this Neovim no longer serves the desktop')
    end
    for _, fn in ipairs(entry.after) do
      pcall(fn)
    end
  end)
  return true
end

--- Whether this Neovim serves the desktop: `{serving, pid, since, dialogs, client}` (`client`
--- is who the daemon takes this Neovim for).
function M.status()
  local s = serving
  if not s or not s.ready then
    return { serving = false, starting = s ~= nil, stopping = stopping ~= nil }
  end
  return {
    serving = true,
    pid = s.pid,
    since = s.since,
    dialogs = vim.tbl_count(s.dialogs),
    client = s.init and s.init.client or nil,
  }
end

--- The `:checkhealth wharf` section.
function M.check_health()
  local health = vim.health
  health.start('wharf: serving the desktop')
  local status = M.status()
  if status.serving then
    local who = status.client and string.format(' as %s', M.describe(status.client)) or ''
    health.ok(string.format('this Neovim draws the dialogs of every app that asks the Wharf daemon%s '
      .. '(wharf --connect pid %d, since %s; %d dialog(s) open)', who, status.pid,
      os.date('%H:%M:%S', status.since), status.dialogs))
  elseif status.starting then
    health.info('connecting to the Wharf daemon to serve the desktop')
  else
    health.info('this Neovim does not serve the desktop: :WharfServeDesktop makes it draw every app\'s dialogs')
  end
end

return M
