-- :WharfServeDesktop: a Neovim registered as the Wharf daemon's presenter connection draws
-- another app's dialogs, naming the app, and a key choice there completes that app's dialog;
-- one presenter at a time; stopping (or exiting) releases the role. Each test runs its own
-- daemon (`wharf --listen`) in a fresh XDG_RUNTIME_DIR, and the other app is this process
-- speaking to the daemon through its own `wharf --connect`.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

--- A fresh runtime folder (mode 0700) per test, named when the tests are declared: the child
--- Neovim the runner starts must be given it.
local function runtime_dir(tag)
  return vim.fn.tempname() .. '-wharf-run-' .. tag
end

-- MARK: The daemon

local Daemon = {}
Daemon.__index = Daemon

--- Starts `wharf --listen` on `$runtime/wharf/wharf.sock` and waits for its socket.
function Daemon.start(runtime)
  vim.fn.mkdir(runtime, 'p', tonumber('700', 8))
  local self = setmetatable({ runtime = runtime, socket = runtime .. '/wharf/wharf.sock' }, Daemon)
  self.proc = vim.system({ H.wharf, '--listen', '--state-dir', ':memory:', '--log-file', runtime .. '/daemon.log' },
    { env = { XDG_RUNTIME_DIR = runtime }, stdout = false, stderr = false })
  ok(vim.wait(10000, function()
    return vim.uv.fs_stat(self.socket) ~= nil
  end, 20), 'the daemon\'s socket at ' .. self.socket)
  return self
end

function Daemon:log()
  return H.read(self.runtime .. '/daemon.log') or ''
end

--- SIGTERM; returns the daemon's exit status.
function Daemon:stop()
  if not self.status then
    self.proc:kill('sigterm')
    self.status = self.proc:wait(10000).code
  end
  return self.status
end

function Daemon:remove()
  self:stop()
  vim.fn.delete(self.runtime, 'rf')
end

-- MARK: Another app, through `wharf --connect`

local App = {}
App.__index = App

--- A client of the daemon (NDJSON over a `wharf --connect` bridge this process starts, so the
--- daemon takes this process for the app), initialized as `name`.
function App.connect(runtime, name)
  local self = setmetatable({ lines = {}, messages = {}, buffer = '', next_id = 1 }, App)
  self.proc = vim.system({ H.wharf, '--connect' }, {
    env = { XDG_RUNTIME_DIR = runtime },
    stdin = true,
    stderr = false,
    stdout = function(_, data)
      if data then
        -- A libuv callback: only split here; decoding is the main loop's.
        self.buffer = self.buffer .. data
        while true do
          local line, rest = self.buffer:match('^([^\n]*)\n(.*)$')
          if not line then
            break
          end
          self.buffer = rest
          table.insert(self.lines, line)
        end
      end
    end,
  })
  self.init = self:request('initialize', { clientInfo = { name = name }, capabilities = vim.empty_dict() })
  self.proc:write(vim.json.encode({ jsonrpc = '2.0', method = 'initialized', params = vim.empty_dict() }) .. '\n')
  return self
end

function App:drain()
  while #self.lines > 0 do
    table.insert(self.messages, vim.json.decode(table.remove(self.lines, 1)))
  end
end

--- Sends a request and waits for its answer; returns the result, or fails with the error unless
--- `allow_error` (then returns nil, error).
function App:request(method, params, allow_error)
  local id = self.next_id
  self.next_id = id + 1
  self.proc:write(vim.json.encode({ jsonrpc = '2.0', id = id, method = method, params = params }) .. '\n')
  local answer
  ok(vim.wait(10000, function()
    self:drain()
    for i, message in ipairs(self.messages) do
      if message.id == id and message.method == nil then
        answer = table.remove(self.messages, i)
        return true
      end
    end
    return false
  end, 10), 'the daemon\'s answer to ' .. method)
  if answer.error and not allow_error then
    error(method .. ': ' .. vim.inspect(answer.error), 2)
  end
  return answer.result, answer.error
end

--- Waits for a notification `method` about dialog `id`; returns its params.
function App:wait_for(method, id)
  local found
  ok(vim.wait(10000, function()
    self:drain()
    for i, message in ipairs(self.messages) do
      if message.method == method and message.params and message.params.dialogId == id then
        found = table.remove(self.messages, i).params
        return true
      end
    end
    return false
  end, 10), method .. ' for dialog ' .. tostring(id) .. '; got ' .. vim.inspect(self.messages))
  return found
end

--- An importer of plain text opening in `dir`; returns its id.
function App:present(dir)
  local result = self:request('presentImporter', {
    allowedContentTypes = { 'public.plain-text' },
    options = { defaultDirectory = 'file://' .. dir, title = 'Pick a note' },
  })
  return result.dialogId
end

--- `shutdown` and `exit`: the bridge exits with the session's status, returned.
function App:close()
  self:request('shutdown', nil)
  self.proc:write(vim.json.encode({ jsonrpc = '2.0', method = 'exit' }) .. '\n')
  self.proc:write(nil)
  return self.proc:wait(10000).code
end

-- MARK: The serving Neovim

local function status(c)
  return c:lua('return require("wharf.serve").status()')
end

local function serve(c)
  c:lua('vim.cmd.WharfServeDesktop()')
  c:wait(function()
    return status(c).serving
  end, 'the Neovim to serve the desktop')
  contains(c:messages(), 'wharf: this Neovim draws every app\'s dialogs now', 'it says so')
end

local function stop_serving(c)
  c:lua('vim.cmd.WharfServeDesktopStop()')
  c:wait(function()
    local s = status(c)
    return not s.serving and not s.stopping
  end, 'the Neovim to stop serving')
end

--- How the picker names the app: its name, and the executable the daemon found for it.
local function asker(app)
  local exe = app.init.client.app:match('^exe:(.*)$')
  ok(exe, 'the app is known by its executable: ' .. vim.inspect(app.init.client))
  return 'test-app (' .. exe:match('[^/]*$') .. ')'
end

--- Runs `fn(daemon)`, then stops the daemon whatever happened, checking that it exited 0.
local function with_daemon(runtime, fn)
  local daemon = Daemon.start(runtime)
  local fine, err = xpcall(fn, debug.traceback, daemon)
  local code = daemon:stop()
  local log = daemon:log()
  daemon:remove()
  if not fine then
    error(err, 0)
  end
  eq(0, code, 'the daemon\'s exit status; its log:\n' .. log)
  return log
end

local run1 = runtime_dir('draw')
H.test('serve: another app\'s importer is drawn here, the app named, and answered with keys', {
  -- Wide enough for the whole title: a narrow one keeps the app's name and cuts what follows.
  dialogs = 0, runtime_dir = run1, setup = { window = { width = 76 } },
}, function(c)
  with_daemon(run1, function()
    serve(c)
    eq(0, status(c).dialogs, 'no dialog yet')
    local app = App.connect(run1, 'test-app')
    eq('connection', app.init.capabilities.presenter, 'the app\'s dialogs go to the presenter connection')
    local id = app:present(c.docs)
    local p = c:wait_picker(function(p)
      return p.title:find('Pick a note', 1, true)
    end, 'the app\'s dialog in the picker')
    ok(vim.startswith(p.title, ' ' .. asker(app) .. ': Pick a note · '), 'the title names the app first: ' .. p.title)
    ok(p.current, 'the picker has the focus')
    eq(1, status(c).dialogs, 'one dialog shown')
    c:go('notes.txt')
    c:input('<CR>')
    local completed = app:wait_for('dialog/completed', id)
    eq({ 'file://' .. c.docs .. '/notes.txt' }, completed.urls, 'the app gets the file chosen in Neovim')
    c:wait_no_picker()
    eq(0, status(c).dialogs, 'nothing left open')
    eq(0, app:close(), 'the app\'s bridge exits 0')
    c:finish()
  end)
end)

local run6 = runtime_dir('save')
H.test('serve: another app\'s exporter is saved where this Neovim says', {
  dialogs = 0, runtime_dir = run6,
}, function(c)
  with_daemon(run6, function()
    serve(c)
    local app = App.connect(run6, 'test-app')
    local id = app:request('presentExporter', {
      documents = { { filename = 'report.txt', writableContentTypes = { 'public.plain-text' },
        contents = { text = 'from the app\n' } } },
      options = { defaultDirectory = 'file://' .. c.docs },
    }).dialogId
    local p = c:wait_picker(nil, 'the app\'s exporter')
    eq('» Save here as report.txt…', p.lines[1], 'the app\'s suggestion')
    c:input('gg<CR>')
    c:wait_prompt('the name prompt')
    c:input('<C-u>from-app.txt<CR>')
    local completed = app:wait_for('dialog/completed', id)
    eq({ 'file://' .. c.docs .. '/from-app.txt' }, completed.urls, 'saved where Neovim said')
    eq('from the app\n', H.read(c.docs .. '/from-app.txt'), 'the app\'s bytes')
    c:wait_no_picker()
    eq(0, app:close(), 'the app\'s bridge exits 0')
    c:finish()
  end)
end)

local run2 = runtime_dir('one')
H.test('serve: a second Neovim is refused while one serves; stopping and exiting release the role', {
  dialogs = 0, runtime_dir = run2,
}, function(c)
  local c2
  local fine, err = xpcall(function()
    with_daemon(run2, function()
      serve(c)
      c2 = H.spawn({ runtime_dir = run2 })
      c2:lua('vim.cmd.WharfServeDesktop()')
      local refusal = c2:wait(function()
        local m = c2:messages()
        return m:find('cannot serve the desktop', 1, true) and m
      end, 'the refusal')
      contains(refusal, 'presents dialogs already', 'it says another presenter serves')
      eq(false, status(c2).serving, 'the second does not serve')
      c2:wait(function()
        return not status(c2).starting
      end, 'the refused connection to be gone')

      -- The first still draws the app's dialogs.
      local app = App.connect(run2, 'test-app')
      local id = app:present(c.docs)
      c:wait_picker(nil, 'the dialog in the first Neovim')
      eq(nil, c2:picker(), 'none in the second')
      c:input('q')
      eq('user', app:wait_for('dialog/cancelled', id).reason, 'q cancels the app\'s dialog')

      stop_serving(c)
      contains(c:messages(), 'no longer serves the desktop', 'the first says it stopped')
      serve(c2)
      id = app:present(c.docs)
      c2:wait_picker(nil, 'the next dialog in the second Neovim')
      eq(nil, c:picker(), 'none in the first')
      c2:go('notes.txt')
      c2:input('<CR>')
      eq({ 'file://' .. c.docs .. '/notes.txt' }, app:wait_for('dialog/completed', id).urls, 'answered from the second')

      -- Neovim exiting gives the role back too.
      c2:finish()
      serve(c)
      eq(0, app:close(), 'the app\'s bridge exits 0')
      c:finish()
    end)
  end, debug.traceback)
  if c2 and not fine then
    c2:kill()
  end
  if not fine then
    error(err, 0)
  end
end)

local run3 = runtime_dir('end')
H.test('serve: a dialog the app takes back closes; one open when serving stops fails for the app', {
  dialogs = 0, runtime_dir = run3,
}, function(c)
  with_daemon(run3, function()
    serve(c)
    local app = App.connect(run3, 'test-app')
    local id = app:present(c.docs)
    local p = c:wait_picker(nil, 'the app\'s dialog')
    -- The window (50 cells) is too narrow for the whole title: the app's name stays.
    ok(vim.startswith(p.title, ' ' .. asker(app) .. ': …'), 'the app named, the rest cut: ' .. p.title)
    app:request('cancel', { dialogId = id })
    eq('client', app:wait_for('dialog/cancelled', id).reason, 'the app cancelled it')
    c:wait_no_picker('the picker to go with the dialog')
    contains(c:messages(), asker(app) .. ' took its dialog back', 'it says why the window went')

    id = app:present(c.docs)
    c:wait_picker(nil, 'the app\'s next dialog')
    stop_serving(c)
    local completed = app:wait_for('dialog/completed', id)
    eq(-32040, completed.error and completed.error.code, 'presenterFailed for the app: ' .. vim.inspect(completed))
    eq(nil, c:picker(), 'the picker went with the presenter')
    eq(0, app:close(), 'the app\'s bridge exits 0')
    c:finish()
  end)
end)

local run4 = runtime_dir('health')
H.test('serve: :checkhealth wharf says whether this Neovim serves the desktop', {
  dialogs = 0, runtime_dir = run4,
}, function(c)
  local function health()
    c:lua([[for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.bo[b].filetype == 'checkhealth' then vim.api.nvim_buf_delete(b, { force = true }) end end]])
    c:input(':checkhealth wharf<CR>')
    return c:wait(function()
      local t = c:lua([[for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.bo[b].filetype == 'checkhealth' then
        return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end end]])
      return t and t:find('state directory', 1, true) and t or nil
    end, 'the health report')
  end
  with_daemon(run4, function()
    contains(health(), 'this Neovim does not serve the desktop', 'before')
    serve(c)
    local text = health()
    contains(text, 'this Neovim draws the dialogs of every app that asks the Wharf daemon as nvim (', 'while serving')
    contains(text, 'wharf --connect pid ' .. status(c).pid, 'the bridge')
    stop_serving(c)
    contains(health(), 'this Neovim does not serve the desktop', 'after')
    c:finish()
  end)
end)

local run5 = runtime_dir('start')
H.test('serve: with no daemon listening, :WharfServeDesktop starts one', {
  dialogs = 0, runtime_dir = run5, setup = { window = { width = 76 } },
}, function(c)
  vim.fn.mkdir(run5, 'p', tonumber('700', 8))
  local function daemon_pid()
    -- Found by its own command line only: the socket path is this test's.
    for _, pid in ipairs(vim.fn.readdir('/proc', function(n)
      return n:match('^%d+$') and 1 or 0
    end)) do
      local cmdline = (H.read('/proc/' .. pid .. '/cmdline') or ''):gsub('%z', ' ')
      if cmdline:find('--listen=' .. run5 .. '/wharf/wharf.sock', 1, true) then
        return tonumber(pid)
      end
    end
  end
  local fine, err = xpcall(function()
    serve(c)
    local pid = ok(daemon_pid(), 'a daemon on this test\'s socket')
    local app = App.connect(run5, 'test-app')
    -- Any file or folder (`public.item`, what the portal asks for without filters).
    local id = app:request('presentImporter', {
      allowedContentTypes = { 'public.item' },
      options = { defaultDirectory = 'file://' .. c.docs },
    }).dialogId
    local p = c:wait_picker(nil, 'the app\'s dialog')
    contains(p.title, 'All files and folders', 'the filter named as it is')
    c:input('q')
    eq('user', app:wait_for('dialog/cancelled', id).reason, 'cancelled in Neovim')
    eq(0, app:close(), 'the app\'s bridge exits 0')
    c:finish()
    vim.uv.kill(pid, 'sigterm')
    ok(vim.wait(10000, function()
      return daemon_pid() == nil
    end, 20), 'the daemon to exit')
  end, debug.traceback)
  local pid = daemon_pid()
  if pid then
    vim.uv.kill(pid, 'sigterm')
  end
  vim.fn.delete(run5, 'rf')
  if not fine then
    error(err, 0)
  end
end)

local run7 = runtime_dir('gone')
H.test('serve: the connection or the daemon going away ends serving, and says so', {
  dialogs = 0, runtime_dir = run7,
}, function(c)
  with_daemon(run7, function(daemon)
    local function ended()
      c:wait(function()
        local s = status(c)
        return not s.serving and not s.starting
      end, 'serving to end')
      contains(c:messages(), 'this Neovim no longer serves the desktop: ', 'it says why')
      c:lua('vim.cmd.messages("clear")')
    end
    serve(c)
    local app = App.connect(run7, 'test-app')
    local id = app:present(c.docs)
    c:wait_picker(nil, 'the app\'s dialog')
    -- The bridge killed: nothing more comes over the connection, and the picker goes all the same.
    vim.uv.kill(status(c).pid, 'sigkill')
    ended()
    c:wait_no_picker('the dialog\'s window to go with the connection')
    eq(-32040, app:wait_for('dialog/completed', id).error.code, 'presenterFailed for the app')

    serve(c)
    app:present(c.docs)
    c:wait_picker(nil, 'the app\'s next dialog')
    eq(0, daemon:stop(), 'the daemon exits 0 on SIGTERM')
    ended()
    c:wait_no_picker('the dialog\'s window to go with the daemon')
    app.proc:wait(10000)
    c:finish()
  end)
end)
