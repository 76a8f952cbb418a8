-- The session: one wharf per Neovim, presenters, endings from the app's side, failures, the
-- commands (:WharfStop's wedged case is in test_timeout.lua), :checkhealth.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

local function import(c, tag, opts)
  opts = opts or {}
  opts.default_directory = opts.default_directory or c.docs
  c:lua('T.handle = require("wharf").import(..., T.recorder(' .. vim.inspect(tag) .. '))', opts)
end

--- The lines of the :WharfAccess window, or nil while none is shown.
local function access_lines(c)
  return c:lua([[for _, w in ipairs(vim.api.nvim_list_wins()) do local b = vim.api.nvim_win_get_buf(w)
    if vim.bo[b].filetype == 'wharfaccess' then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end end]])
end

--- Waits for the :WharfAccess window to list a grant; its lines.
local function wait_access_list(c)
  return c:wait(function()
    local l = access_lines(c)
    return l and l[1] and l[1]:find('grant', 1, true) and l or nil
  end, 'the access list')
end

H.test('session: one wharf for every dialog, started on first use, its stderr in the log', { dialogs = 2 }, function(c)
  eq(false, c:lua('return require("wharf").status().running'), 'nothing runs before the first use')
  import(c, 'first', {})
  c:wait_picker()
  local pid = c:lua('return require("wharf").status().pid')
  ok(type(pid) == 'number' and pid > 0, 'a pid')
  c:input('q')
  c:wait_done('first')
  import(c, 'second', {})
  c:wait_picker()
  eq(pid, c:lua('return require("wharf").status().pid'), 'the same process')
  c:input('q')
  c:wait_done('second')
  -- Wharf's standard error goes to the log: a request it logs as a warning (an unknown method
  -- gets methodNotFound and a log line? no: ask for a bad dialog/list, which it answers only).
  contains(c:log(), 'starting ' .. H.wharf, 'the log names the command')
  -- (finish() checks that :qa! shut it down with status 0.)
end)

H.test('session: shutdown on exit ends an open dialog once (disconnected)', { dialogs = 1 }, function(c)
  import(c, 'open-at-exit', {})
  c:wait_picker()
  -- finish() quits with the picker open: the dialog must still end exactly once, and wharf
  -- must exit with status 0.
end)

H.test('session: presenter/hide (a timeout) takes the picker down', { dialogs = 1 }, function(c)
  import(c, 'timeout', { timeout_ms = 300 })
  c:wait_picker()
  local r = c:wait_done('timeout')
  eq({ 'cancelled', 'timeout' }, { r.status, r.reason }, 'ended by the timeout')
  c:wait_no_picker()
end)

H.test('session: handle.cancel() ends the dialog from the app\'s side', { dialogs = 1 }, function(c)
  import(c, 'cancel', {})
  c:wait_picker()
  c:lua('T.handle.cancel()')
  local r = c:wait_done('cancel')
  eq({ 'cancelled', 'client' }, { r.status, r.reason }, 'cancelled by the client')
  c:wait_no_picker()
end)

H.test('session: cancel() before the dialog is presented still ends it once', { dialogs = 1 }, function(c)
  c:lua('T.handle = require("wharf").import({}, T.recorder("early")); T.handle.cancel()')
  local r = c:wait_done('early')
  eq({ 'cancelled', 'client' }, { r.status, r.reason }, 'cancelled by the client')
  c:wait_no_picker()
end)

--- Starts the child's session and keeps it in `T.s` (the plugin's own table for it).
local function hold_session(c)
  c:lua('require("wharf.client").ensure(function(err, s) T.s = s end)')
  c:wait(function()
    return c:lua('return T.s ~= nil')
  end, 'the session')
end

--- Hands the child's session a message as if its wharf had sent it: to the dispatcher that
--- vim.lsp.rpc hands Wharf's messages to once it has read them (a request in a coroutine, as
--- vim.lsp.rpc runs it).
local function as_if_from_wharf(c, msg, times)
  c:lua([[
    local msg, times = ...
    for _ = 1, times do
      if msg.id == nil then
        T.s.rpc:_notification(msg.method, vim.deepcopy(msg.params))
      else
        coroutine.wrap(function()
          T.s.rpc:_server_request(msg.method, vim.deepcopy(msg.params))
        end)()
      end
    end
  ]], msg, times or 1)
end

H.test('session: messages for a dialog that has ended, or for none, are dropped, not kept', { dialogs = 1 }, function(c)
  hold_session(c)
  import(c, 'ended', {})
  c:wait_picker()
  c:input('q')
  local r = c:wait_done('ended')
  eq('cancelled', r.status, 'status')
  local id = c:lua('return T.calls.ended[1].dialog_id')
  as_if_from_wharf(c, { jsonrpc = '2.0', method = 'dialog/progress', params = { dialogId = id, completed = 1 } }, 200)
  as_if_from_wharf(c, { jsonrpc = '2.0', method = 'presenter/show', params = { dialogId = 'never-presented' } }, 50)
  as_if_from_wharf(c, { jsonrpc = '2.0', id = 'late-snapshot', method = 'exporter/snapshot',
    params = { dialogId = id, documentIndex = 0, contentType = 'public.plain-text' } })
  eq(0, c:lua('return vim.tbl_count(T.s.early)'), 'what the plugin keeps for dialogs it does not have')
  contains(c:log(), 'dialog/progress for dialog ' .. tostring(id) .. ', which the plugin does not have: dropped',
    'the log says what was dropped')
end)

H.test('session: a message that comes before its dialog\'s answer still reaches the dialog', { dialogs = 1 }, function(c)
  hold_session(c)
  -- Wharf answers presentImporter before it sends presenter/show (unless batched); the answer is
  -- held here until that show and a message for no dialog have come, as a batch's would be.
  c:lua([[
    local rpc = T.s.rpc
    local answered = rpc._settle
    rpc._settle = function(self, id, err, result)
      if type(result) == 'table' and result.dialogId and not T.held then
        T.held = true
        T.s.rpc:_notification('dialog/progress', { dialogId = 'no-such-dialog' })
        vim.defer_fn(function()
          T.early_before_answer = vim.deepcopy(vim.tbl_keys(T.s.early))
          answered(self, id, err, result)
          T.early_after_answer = vim.tbl_count(T.s.early)
        end, 300)
        return
      end
      return answered(self, id, err, result)
    end
  ]])
  import(c, 'held', {})
  c:wait_picker(nil, 'the picker, from the presenter/show that came before the answer')
  local before = c:lua('return T.early_before_answer')
  eq(2, #before, 'held early: the dialog\'s show and the message for no dialog')
  eq(0, c:lua('return T.early_after_answer'), 'kept once the answer came')
  c:input('q')
  local r = c:wait_done('held')
  eq({ 'cancelled', 'user' }, { r.status, r.reason }, 'ended by the picker')
end)

H.test('session: a Lua error in the presenter gives the dialog up (dialog/fail)', { dialogs = 1 }, function(c)
  import(c, 'boom', {})
  c:wait_picker()
  -- A broken UI plugin: vim.ui.input raises when the filter prompt opens.
  c:lua('vim.ui.input = function() error("boom from a UI plugin") end')
  c:input('/')
  local r = c:wait_done('boom')
  eq('failed', r.status, 'status')
  eq(-32040, r.error.code, 'presenterFailed')
  contains(r.error.message, 'boom from a UI plugin', 'the message')
  c:wait_no_picker()
end)

H.test('session: a Neovim error while the picker opens gives the dialog up', {
  dialogs = 1,
  setup = { window = { border = 'no-such-border' } },
}, function(c)
  import(c, 'openfail', {})
  local r = c:wait_done('openfail')
  eq('failed', r.status, 'status')
  eq(-32040, r.error.code, 'presenterFailed')
  contains(r.error.message, 'border', 'Neovim\'s message')
  c:wait_no_picker()
end)

H.test('session: wharf dying ends the open dialog once; the next dialog starts a new one', { dialogs = 2 }, function(c)
  import(c, 'died', {})
  c:wait_picker()
  local pid = c:lua('return require("wharf").status().pid')
  vim.uv.kill(pid, 'sigkill')
  local r = c:wait_done('died')
  eq('failed', r.status, 'status')
  eq(-32603, r.error.code, 'code')
  contains(r.error.message, 'wharf was killed by signal 9', 'the message')
  c:wait_no_picker()
  import(c, 'after', {})
  c:wait_picker()
  ok(c:lua('return require("wharf").status().pid') ~= pid, 'a new process')
  c:input('q')
  eq('user', c:wait_done('after').reason, 'dismissed')
end)

H.test('session: bad options and bad types fail through on_done, once', { dialogs = 3 }, function(c)
  c:lua('require("wharf").import({ multipel = true }, T.recorder("typo"))')
  c:lua('require("wharf").import({ types = { "com.example.nope" } }, T.recorder("type"))')
  c:lua('require("wharf").export({ documents = {} }, T.recorder("nodocs"))')
  local r = c:wait_done('typo')
  eq({ 'failed', -32602 }, { r.status, r.error.code }, 'an unknown option')
  contains(r.error.message, 'multipel', 'named')
  r = c:wait_done('type')
  eq({ 'failed', -32602 }, { r.status, r.error.code }, 'an unknown type, refused by wharf')
  contains(r.error.message, 'com.example.nope', 'named')
  r = c:wait_done('nodocs')
  eq({ 'failed', -32602 }, { r.status, r.error.code }, 'no documents')
end)

H.test('session: a missing binary fails through on_done', { dialogs = 1, setup = { cmd = { '/nonexistent/wharf' } } }, function(c)
  c:lua('require("wharf").import({}, T.recorder("missing"))')
  local r = c:wait_done('missing')
  eq('failed', r.status, 'status')
  contains(r.error.message, '/nonexistent/wharf', 'names the command')
end)

H.test('presenter native: the desktop (here a script) answers, Neovim draws nothing', {
  dialogs = 2,
  presenter = 'native',
  cmd_extra = { '--presenter', 'script:answers.json' },
  setup = { trace = true },
}, function(c)
  H.write(c.docs .. '/answers.json', vim.json.encode({
    { choose = { 'notes.txt' } },
    { save = { path = 'saved.txt' } },
  }))
  c:count_pickers()
  import(c, 'native', {})
  local r = c:wait_done('native')
  eq({ c.docs .. '/notes.txt' }, r.paths, 'the script\'s pick')
  c:lua('require("wharf").export({ documents = { { filename = "s", snapshot = function() return "lazy" end } } }, T.recorder("native-save"))')
  r = c:wait_done('native-save')
  eq({ c.docs .. '/saved.txt' }, r.paths, 'saved where the script said')
  eq('lazy', H.read(c.docs .. '/saved.txt'), 'the snapshot\'s bytes')
  eq(0, c:lua('return T.pickers'), 'no picker')
  eq('script', c:lua('return require("wharf").status().presenter'), 'the presenter')
  local log = c:log()
  ok(not log:find('"presentsDialogs":true', 1, true), 'initialize did not say presentsDialogs')
  contains(log, '"presentsDialogs":false', 'initialize said presentsDialogs false')
end)

H.test('presenter auto: asks for the desktop\'s dialogs, draws when the server hands them over', {
  dialogs = 1,
  presenter = 'auto',
  setup = { trace = true },
}, function(c)
  import(c, 'auto', {})
  c:wait_picker()
  local log = c:log()
  contains(log, '"prefersDesktopDialogs":true', 'initialize asked for desktop dialogs')
  contains(log, '"presentsDialogs":true', 'and said it can draw')
  eq('frontend', c:lua('return require("wharf").status().presenter'), 'the presenter')
  c:input('q')
  c:wait_done('auto')
end)

H.test(':WharfOpen with an extension Wharf knows no type for: the title names it, not "All files"', {
  dialogs = 2,
}, function(c)
  -- Wharf makes up a type for it (dyn.…, "zzqq document") whose filter has no globs and says
  -- allowsAllFiles = false; the title said "All files" over a folder of which nothing could be
  -- chosen.
  c:input(':WharfOpen zzqq<CR>')
  local p = c:wait_picker()
  ok(not p.title:find('All files', 1, true), 'not "All files": ' .. p.title)
  c:wait_picker(function(q) return q.title:find('Zzqq document', 1, true) end, 'the type named in the title')
  c:input('q')
  c:wait_no_picker()
  -- Without an argument any file may be chosen, and the title says so.
  c:input(':WharfOpen<CR>')
  contains(c:wait_picker().title, 'All files', 'any file')
  c:input('q')
  c:wait_no_picker()
end)

H.test(':WharfOpen opens the chosen files in buffers', { dialogs = 1 }, function(c)
  c:count_pickers()
  c:input(':WharfOpen md txt<CR>')
  local p = c:wait_picker()
  contains(p.title, 'Markdown text, plain text', 'types from extensions')
  eq('» Open 0 marked', p.lines[1], 'several may be opened')
  c:go('notes.txt')
  c:input('<Tab>')
  c:wait_picker(function(q) return q.lines[1] == '» Open 1 marked' end, 'a mark')
  c:go('todo.md')
  c:input('<CR>')
  local state = c:wait(function()
    local s = c:lua([[return { name = vim.api.nvim_buf_get_name(0), listed = vim.tbl_map(function(b)
      return vim.api.nvim_buf_get_name(b) end, vim.tbl_filter(function(b) return vim.bo[b].buflisted end, vim.api.nvim_list_bufs())) }]])
    return s.name == c.docs .. '/notes.txt' and s or nil
  end, 'the first chosen file in the window')
  eq(c.docs .. '/notes.txt', state.name, 'the first chosen file in the window')
  ok(vim.tbl_contains(state.listed, c.docs .. '/todo.md'), 'the second one listed')
  eq({ 'Buy rope.' }, c:lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), 'its text')
end)

H.test(':WharfAccess lists the grant and revokes it', { dialogs = 1 }, function(c)
  import(c, 'grant', {})
  c:wait_picker()
  c:go('notes.txt')
  c:input('<CR>')
  c:wait_done('grant')
  c:input(':WharfAccess<CR>')
  local lines = wait_access_list(c)
  eq({ 'grant    ro ~/docs/notes.txt' }, lines, 'the grant')
  c:input('x')
  c:wait_prompt('the revoke question')
  c:input('1<CR>')
  c:wait(function()
    local l = access_lines(c)
    return l and l[1] == '  (no grants or bookmarks)'
  end, 'the grant gone')
  c:lua('require("wharf").list_access(function(err, entries) T.after = { err = err, n = entries and #entries } end)')
  eq({ n = 0 }, c:wait(function() return c:lua('return T.after') end, 'listAccess'), 'no grants left')
  c:input('q')
end)

H.test(':WharfAccess lists a grant whose name has a newline on one line, and <CR> edits it', {
  dialogs = 1,
  presenter = 'native',
  cmd_extra = { '--presenter', 'script:answers.json' },
}, function(c)
  local name = 'two\nlines.txt'
  H.write(c.docs .. '/' .. name, 'both\n')
  H.write(c.docs .. '/answers.json', vim.json.encode({ { choose = { name } } }))
  import(c, 'grant', {})
  eq({ c.docs .. '/' .. name }, c:wait_done('grant').paths, 'the pick')
  c:input(':WharfAccess<CR>')
  local lines = wait_access_list(c)
  -- Neovim shows the newline as ^@ (a NUL in the line): one line for the grant.
  eq({ 'grant    ro ~/docs/two\0lines.txt' }, lines, 'the grant')
  c:input('<CR>')
  c:wait(function()
    return c:lua('return vim.api.nvim_buf_get_name(0)') == c.docs .. '/' .. name
  end, 'the file edited')
  eq({ 'both' }, c:lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), 'its lines')
  ok(not c:messages():find('E%d+'), 'no error: ' .. c:messages())
end)

H.test('names with control characters reach messages as Neovim shows them: saved …, the revoke question', {
  dialogs = 1,
  presenter = 'native',
  cmd_extra = { '--presenter', 'script:answers.json' },
}, function(c)
  -- A newline split the message and the question over two lines, and an escape went to the
  -- terminal as it was; they are shown as ^@ and ^[, as in the picker's border.
  local name = 'two\nlines\27[31m.txt'
  local as_shown = '~/docs/two^@lines^[[31m.txt'
  H.write(c.docs .. '/answers.json', vim.json.encode({ { save = { path = name } } }))
  c:input(':WharfSaveAs<CR>')
  local said = c:wait(function()
    return c:messages():match('wharf: saved [^\n]*')
  end, 'the saved message')
  eq('wharf: saved ' .. as_shown, said, 'the saved message')
  eq(c.docs .. '/' .. name, c:lua('return vim.api.nvim_buf_get_name(0)'), 'the buffer edits the exact file')
  c:input(':WharfAccess<CR>')
  wait_access_list(c)
  c:input('x')
  eq('Revoke grant ' .. as_shown .. '?', c:wait_question('the revoke question').prompt, 'the question')
  if not c:blocked() then -- Neovim 0.10's list answers no request until it is answered
    local screen = c:screen()
    ok(vim.tbl_contains(screen, 'Revoke grant ' .. as_shown .. '?'), 'the question on one line: ' .. vim.inspect(screen))
  end
  c:input('1<CR>')
  c:wait(function()
    local l = access_lines(c)
    return l and l[1] == '  (no grants or bookmarks)'
  end, 'the grant revoked')
  c:input('q')
end)

H.test('list_access and :WharfAccess: the path of a name that is not UTF-8 is its exact bytes', { dialogs = 1 }, function(c)
  -- Wharf's `path` is for reading (a byte that is not UTF-8 reads U+FFFD); the URL is exact.
  local path = c.docs .. '/odd/x\255y.txt'
  H.write(path, 'odd\n')
  import(c, 'grant', { default_directory = c.docs .. '/odd' })
  c:wait_picker()
  c:input('<CR>')
  eq({ path }, c:wait_done('grant').paths, 'the pick')
  c:lua('require("wharf").list_access(function(err, entries) T.entries = { err = err, entries = entries } end)')
  local got = c:wait(function() return c:lua('return T.entries') end, 'listAccess')
  eq(path, got.entries[1].path, 'list_access gives the exact path')
  c:input(':WharfAccess<CR>')
  wait_access_list(c)
  c:input('<CR>')
  c:wait(function()
    return c:lua('return vim.api.nvim_buf_get_name(0)') == path
  end, 'the file edited')
  eq({ 'odd' }, c:lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), 'its lines')
end)

H.test(':WharfStop: not running, then a running wharf stopped cleanly; the next dialog starts a new one', {
  dialogs = 2,
}, function(c)
  c:input(':WharfStop<CR>')
  c:wait(function()
    return c:messages():find('wharf: not running', 1, true)
  end, 'told that nothing runs')
  eq(false, c:lua('return require("wharf").status().running'), 'still nothing runs')
  import(c, 'open', {})
  c:wait_picker()
  local pid = c:lua('return require("wharf").status().pid')
  -- Typed over the picker, as a person would.
  c:input(':WharfStop<CR>')
  c:wait(function()
    return c:messages():find('wharf: stopped (pid ' .. pid .. '); the next dialog starts it again', 1, true)
  end, 'told which wharf stopped')
  -- A wharf that answers ends its dialogs itself, and exits.
  local r = c:wait_done('open')
  eq({ 'cancelled', 'disconnected' }, { r.status, r.reason }, 'the open dialog ended by wharf')
  c:wait_no_picker()
  contains(c:log(), 'wharf exited with status 0', 'a clean exit')
  ok(vim.uv.kill(pid, 0) ~= 0, 'pid ' .. pid .. ' is gone')
  c:input(':WharfStop<CR>')
  c:wait(function()
    return select(2, c:messages():gsub('wharf: not running', '')) == 2
  end, 'told again that nothing runs')
  import(c, 'after', {})
  c:wait_picker()
  ok(c:lua('return require("wharf").status().pid') ~= pid, 'a new process')
  c:input('q')
  eq('user', c:wait_done('after').reason, 'dismissed')
end)

H.test(':checkhealth wharf reports the binary, version, presenters and state', { dialogs = 0 }, function(c)
  c:input(':checkhealth wharf<CR>')
  local text = c:wait(function()
    local t = c:lua([[for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.bo[b].filetype == 'checkhealth' then
      return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end end]])
    return t and t:find('state directory', 1, true) and t or nil
  end, 'the health report')
  contains(text, 'binary: ' .. H.wharf, 'the binary')
  contains(text, 'version: wharf ', 'the version')
  contains(text, 'usable presenters: frontend', 'the presenters')
  contains(text, 'dialogs are drawn by: Neovim', 'the presenter')
  contains(text, 'state directory: ' .. c.root .. '/wharf-state', 'the state directory')
  contains(text, 'request deadline: 10000 ms (writes to the state store: 35000 ms)', 'the deadlines')
  ok(not text:find('ERROR', 1, true), 'no error: ' .. text)
end)

H.test(':checkhealth wharf reports a missing binary (and no deadline)', {
  dialogs = 0,
  setup = { cmd = { 'no-such-wharf' }, request_timeout_ms = false },
}, function(c)
  c:input(':checkhealth wharf<CR>')
  local text = c:wait(function()
    local t = c:lua([[for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.bo[b].filetype == 'checkhealth' then
      return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end end]])
    return t and t:find('no-such-wharf is not', 1, true) and t or nil
  end, 'the health report')
  contains(text, 'ERROR', 'an error')
  contains(text, 'request deadline: none (request_timeout_ms = false)', 'no deadline')
end)

H.test('help: doc/wharf.txt has tags that :helptags makes and :help finds', { dialogs = 0 }, function(c)
  local doc = H.plugin_dir .. '/doc'
  local tmp = c.root .. '/doc'
  vim.fn.mkdir(tmp, 'p')
  H.write(tmp .. '/wharf.txt', H.read(doc .. '/wharf.txt'))
  c:lua([[local dir = ...; vim.cmd('helptags ' .. vim.fn.fnameescape(dir .. '/doc')); vim.opt.rtp:prepend(dir)]], c.root)
  local tags = H.read(tmp .. '/tags')
  for _, tag in ipairs({ 'wharf', 'wharf.setup()', 'wharf.import()', 'wharf.export()', ':WharfOpen', ':WharfSaveAs',
    ':WharfAccess', ':WharfStop', 'wharf-picker', 'wharf-keys', 'wharf-deadlines' }) do
    ok(tags and tags:find('\n' .. vim.pesc(tag) .. '\t', 1) or tags:find('^' .. vim.pesc(tag) .. '\t'), 'a tag ' .. tag)
  end
  c:input(':help wharf.export()<CR>')
  c:wait(function()
    return c:lua('return vim.bo.buftype == "help" and vim.fn.expand("%:t") == "wharf.txt"')
  end, 'the help page')
end)
