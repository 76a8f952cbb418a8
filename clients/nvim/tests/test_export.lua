-- Saving: :WharfSaveAs (a lazy document answered from the buffer) and wharf.export, drawn in
-- Neovim and driven with real keys.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

--- Fills the current buffer of the child and sets options on it.
local function buffer(c, lines, options)
  c:lua([[
    local lines, options = ...
    vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
    for k, v in pairs(options) do vim.bo[k] = v end
  ]], lines, options or {})
end

local function buffer_state(c)
  return c:lua([[return { name = vim.api.nvim_buf_get_name(0), modified = vim.bo.modified,
    ff = vim.bo.fileformat, eol = vim.bo.endofline, ft = vim.bo.filetype,
    lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), alt = vim.fn.bufname('#') }]])
end

--- :WharfSaveAs, then the action line, then a name typed over the suggestion.
local function save_as(c, name, expect_suggestion)
  c:input(':WharfSaveAs<CR>')
  local p = c:wait_picker()
  if expect_suggestion then
    eq('» Save here as ' .. expect_suggestion .. '…', p.lines[1], 'the action line')
  end
  c:input('gg<CR>')
  c:wait_prompt('the name prompt')
  if expect_suggestion then
    contains(c:lua('return vim.fn.getcmdline()'), expect_suggestion, 'the prefilled name')
  end
  c:input('<C-u>' .. name .. '<CR>')
end

H.test('save as: no final newline, exact bytes, buffer follows the file', { dialogs = 1 }, function(c)
  buffer(c, { 'first', 'second' }, { endofline = false, fixendofline = false })
  save_as(c, 'out.txt', 'Untitled.txt')
  local path = c.docs .. '/out.txt'
  c:wait(function() return H.read(path) end, 'the file')
  eq('first\nsecond', H.read(path), 'bytes')
  local b = c:wait(function()
    local s = buffer_state(c)
    return s.name == path and s or nil
  end, 'the buffer renamed')
  eq(false, b.modified, 'not modified')
  eq({ 'first', 'second' }, b.lines, 'lines')
  eq(false, b.eol, "'endofline' as written")
  c:wait_no_picker()
  -- Neovim knows the buffer as edited there: a plain :w works (no E13) and writes the same bytes.
  c:input(':w<CR>')
  c:wait_normal()
  ok(not c:messages():find('E13', 1, true), 'no E13: ' .. c:messages())
  eq('first\nsecond', H.read(path), 'bytes after :w')
end)

H.test('save as: CRLF (fileformat=dos) and a named buffer', { dialogs = 1 }, function(c)
  c:input(':edit ' .. c.docs .. '/projects/report.txt<CR>')
  c:wait_normal()
  buffer(c, { 'alpha', '', 'gamma' }, { fileformat = 'dos' })
  c:input(':WharfSaveAs<CR>')
  local p = c:wait_picker()
  contains(p.title, '~/docs/projects', 'opens in the buffer\'s folder')
  eq('» Save here as report.txt…', p.lines[1], 'the suggestion is the buffer\'s name')
  c:input('gg<CR>')
  c:wait_prompt('the name prompt')
  c:input('<CR>')
  local path = c.docs .. '/projects/report.txt'
  c:wait(function() return H.read(path) end, 'the file')
  eq('alpha\r\n\r\ngamma\r\n', H.read(path), 'bytes')
  local b = c:wait(function()
    local s = buffer_state(c)
    return not s.modified and s or nil
  end, 'the buffer saved')
  eq('dos', b.ff, 'fileformat kept')
  eq(path, b.name, 'name')
end)

H.test('save as: the bytes are what :write writes', { dialogs = 0 }, function(c)
  -- The plugin's snapshot against Neovim's own writer, for the options that change the bytes.
  local cases = c:lua([[
    local commands = require('wharf.commands')
    local cases = {
      { lines = { 'a', 'b' }, o = {} },
      { lines = { 'a', 'b' }, o = { endofline = false, fixendofline = false } },
      { lines = { 'a', 'b' }, o = { endofline = false, fixendofline = true } },
      { lines = { 'a', 'b' }, o = { fileformat = 'dos' } },
      { lines = { 'a', 'b' }, o = { fileformat = 'mac', endofline = false, fixendofline = false } },
      { lines = { 'a\0b', '' }, o = {} },
      { lines = { 'été' }, o = { fileencoding = 'latin1' } },
      { lines = { 'été' }, o = { bomb = true } },
      { lines = { 'été' }, o = { fileencoding = 'utf-16le', bomb = true } },
      { lines = { 'x' }, o = { binary = true, endofline = false } },
      { lines = { '' }, o = {} },
      { lines = nil, o = {} },
    }
    local out = {}
    for i, case in ipairs(cases) do
      vim.cmd('enew!')
      if case.lines then vim.api.nvim_buf_set_lines(0, 0, -1, false, case.lines) end
      for k, v in pairs(case.o) do vim.bo[k] = v end
      local ref = T.root .. '/ref' .. i
      vim.cmd('silent keepalt write! ' .. vim.fn.fnameescape(ref))
      local f = io.open(ref, 'rb'); local want = f:read('*a'); f:close()
      local got = commands.buffer_bytes(vim.api.nvim_get_current_buf())
      table.insert(out, { i = i, same = got == want, got = vim.base64.encode(got), want = vim.base64.encode(want) })
    end
    return out
  ]])
  for _, case in ipairs(cases) do
    ok(case.same, string.format('case %d: got %s, :write wrote %s', case.i, case.got, case.want))
  end
end)

H.test('save as: overwrite asks, Cancel keeps the file and the window, Replace writes', { dialogs = 1 }, function(c)
  buffer(c, { 'new text' })
  c:input(':WharfSaveAs<CR>')
  c:wait_picker()
  -- <CR> on an existing file: the name prompt prefilled with it.
  c:go('notes.txt')
  c:input('<CR>')
  c:wait_prompt('the name prompt')
  eq('notes.txt', c:lua('return vim.fn.getcmdline()'), 'the prefilled name')
  c:input('<CR>')
  eq('notes.txt already exists. Replace?', c:wait_question('the overwrite question').prompt, 'the question')
  c:input('2<CR>') -- Cancel
  c:wait_normal()
  eq('Buy rope.\n', H.read(c.docs .. '/notes.txt'), 'the file as it was')
  ok(c:wait_picker(), 'the picker is still open')
  c:go('notes.txt')
  c:input('<CR>')
  c:wait_prompt('the name prompt')
  c:input('<CR>')
  c:wait_question('the overwrite question')
  c:input('1<CR>') -- Replace
  c:wait(function()
    return H.read(c.docs .. '/notes.txt') == 'new text\n'
  end, 'the file replaced')
  c:wait_no_picker()
end)

--- The names in a folder, sorted.
local function names_in(dir)
  local names = {}
  for name in vim.fs.dir(dir) do
    table.insert(names, name)
  end
  table.sort(names)
  return names
end

H.test('save as: <CR> on a file whose name the prompt cannot hold saves over that very file, asking first', {
  dialogs = 2,
}, function(c)
  -- Neovim's name prompt, prefilled with 'two\nlines.txt', showed and gave back 'two lines.txt'
  -- (and 'x\255y.txt' as 'xÿy.txt'): the save went to a new file of that other name.
  local before = names_in(c.docs)
  for _, case in ipairs({
    { name = 'two\nlines.txt', shown = 'two\0lines.txt', question = 'two^@lines.txt already exists. Replace?' },
    { name = 'x\255y.txt', shown = 'x\239\191\189y.txt', question = 'x<ff>y.txt already exists. Replace?' },
  }) do
    local path = c.docs .. '/' .. case.name
    H.write(path, 'old\n')
    c:input(':enew<CR>')
    c:wait_normal()
    buffer(c, { 'new text' })
    c:input(':WharfSaveAs<CR>')
    c:wait_picker()
    c:go(case.shown)
    c:input('<CR>')
    -- A list to choose from, not the name prompt.
    eq(case.question, c:wait_question('the overwrite question').prompt, 'the question names the file as Neovim shows it')
    if not c:blocked() then -- Neovim 0.10's list answers no request until it is answered
      local screen = c:screen()
      eq({ '-', '' }, c:lua('return { vim.fn.getcmdtype(), vim.fn.getcmdline() }'),
        'a list to choose from, not the name prompt: ' .. vim.inspect(screen))
      ok(vim.tbl_contains(screen, case.question), 'the question on the screen: ' .. vim.inspect(screen))
    end
    c:input('1<CR>') -- Replace
    c:wait(function()
      return H.read(path) == 'new text\n'
    end, 'the file replaced')
    c:wait(function()
      return c:lua('return vim.api.nvim_buf_get_name(0)') == path
    end, 'the buffer editing that file')
    c:wait_no_picker()
  end
  local want = vim.list_extend(vim.deepcopy(before), { 'two\nlines.txt', 'x\255y.txt' })
  table.sort(want)
  eq(want, names_in(c.docs), 'no other file made')
end)

--- In the save dialog shown: Save, the second of the offered types, and the name prompt
--- showing `name`, which is accepted; returns how the dialog `tag` ended.
local function save_as_second_type(c, first_suggestion, name, tag)
  local p = c:wait_picker()
  eq('» Save here as ' .. first_suggestion .. '…', p.lines[1], 'the suggestion for the first type')
  c:input('gg<CR>')
  c:wait_prompt('the type choice')
  c:input('2<CR>')
  c:wait(function()
    return c:mode() == 'c' and c:lua('return vim.fn.getcmdline()') == name
  end, 'the name prompt with ' .. name)
  c:input('<CR>')
  return c:wait_done(tag)
end

H.test('export: the name for another type is the one Wharf gives for it', { dialogs = 1 }, function(c)
  -- draft.txt offered as JSON first is suggested as draft.txt.json; picked as plain text it is
  -- draft.txt again (Wharf's rule), where swapping the extension would make draft.txt.txt.
  c:lua([[
    local dir = ...
    require('wharf').export({
      default_directory = dir,
      documents = { { filename = 'draft.txt', types = { 'public.json', 'public.plain-text' }, text = 'x' } },
    }, T.recorder('named'))
  ]], c.docs)
  local r = save_as_second_type(c, 'draft.txt.json', 'draft.txt', 'named')
  eq('completed', r.status, 'status')
  eq({ c.docs .. '/draft.txt' }, r.paths, 'paths')
end)

H.test('export: a type choice among several, the snapshot asked for the chosen type', { dialogs = 1 }, function(c)
  c:lua([[
    local dir = ...
    T.asked = {}
    require('wharf').export({
      default_directory = dir,
      documents = { {
        filename = 'page',
        types = { 'public.plain-text', 'public.html' },
        snapshot = function(content_type)
          table.insert(T.asked, content_type)
          return 'as ' .. content_type
        end,
      } },
    }, T.recorder('typed'))
  ]], c.docs)
  local r = save_as_second_type(c, 'page.txt', 'page.html', 'typed')
  eq('completed', r.status, 'status')
  eq({ c.docs .. '/page.html' }, r.paths, 'paths')
  eq({ 'public.html' }, r.content_types, 'content types')
  eq('as public.html', H.read(c.docs .. '/page.html'), 'bytes')
  eq({ 'public.html' }, c:lua('return T.asked'), 'the snapshot was asked once, for the chosen type')
end)

H.test('export: several documents go into the folder', { dialogs = 1 }, function(c)
  c:lua([[
    require('wharf').export({
      default_directory = ... .. '/projects',
      documents = { { filename = 'one.txt', text = '1' }, { filename = 'two.txt', bytes = '2\255' } },
    }, T.recorder('many'))
  ]], c.docs)
  local p = c:wait_picker()
  eq('» Save 2 documents here', p.lines[1], 'the action line')
  c:input('gg<CR>')
  -- Two kinds of document (text, bytes): plain text or data, the first being the default.
  c:wait_prompt('the type choice')
  c:input('1<CR>')
  local r = c:wait_done('many')
  eq({ c.docs .. '/projects/one.txt', c.docs .. '/projects/two.txt' }, r.paths, 'paths')
  eq('1', H.read(c.docs .. '/projects/one.txt'), 'text')
  eq('2\255', H.read(c.docs .. '/projects/two.txt'), 'bytes that are not UTF-8')
end)

H.test('export: a failing snapshot ends the dialog with snapshotFailed, once', { dialogs = 1 }, function(c)
  c:lua([[
    require('wharf').export({
      default_directory = ...,
      documents = { { filename = 'x.txt', snapshot = function() error('disk on fire') end } },
    }, T.recorder('snap'))
  ]], c.docs)
  c:wait_picker()
  c:input('gg<CR>')
  c:wait_prompt()
  c:input('<CR>')
  local r = c:wait_done('snap')
  eq('failed', r.status, 'status')
  eq(-32041, r.error.code, 'snapshotFailed')
  ok(not H.read(c.docs .. '/x.txt'), 'nothing written')
  c:wait_no_picker()
end)

H.test('save as: a file open in another buffer is written, this buffer keeps its name', { dialogs = 1 }, function(c)
  c:input(':edit notes.txt<CR>:enew<CR>')
  c:wait_normal()
  buffer(c, { 'replacement' })
  c:input(':WharfSaveAs<CR>')
  c:wait_picker()
  c:go('notes.txt')
  c:input('<CR>')
  c:wait_prompt('the name prompt')
  c:input('<CR>')
  c:wait_prompt('the overwrite question')
  c:input('1<CR>')
  c:wait(function()
    return H.read(c.docs .. '/notes.txt') == 'replacement\n'
  end, 'the file replaced')
  c:wait(function()
    return c:messages():find('also open in buffer', 1, true)
  end, 'the warning')
  eq('', buffer_state(c).name, 'this buffer keeps its (empty) name')
end)

H.test('save as: a name with a newline is taken as it is, never run as a command', {
  dialogs = 1,
  presenter = 'native',
  cmd_extra = { '--presenter', 'script:answers.json' },
}, function(c)
  -- A name the desktop's dialog may well give: a file whose name has a newline, and after it
  -- what would be an Ex command if the name reached a command line.
  local name = 'two\nlet&tw=77'
  H.write(c.docs .. '/answers.json', vim.json.encode({ { save = { path = name } } }))
  buffer(c, { 'keep me' })
  c:input(':WharfSaveAs<CR>')
  local path = c.docs .. '/' .. name
  c:wait(function() return H.read(path) end, 'the file')
  eq('keep me\n', H.read(path), 'bytes')
  local b = c:wait(function()
    -- Asked first, as nothing else answers while Neovim waits at a prompt (the name's second
    -- line run as a command and its output paged).
    local mode = vim.rpcrequest(c.chan, 'nvim_get_mode')
    ok(not mode.blocking, 'Neovim waiting at a prompt (mode ' .. mode.mode .. ')')
    local s = buffer_state(c)
    return not s.modified and s.name ~= '' and s or nil
  end, 'the buffer saved')
  eq(path, b.name, 'the buffer edits the file chosen')
  eq({ 'keep me' }, b.lines, 'the lines kept')
  eq(0, c:lua('return vim.o.textwidth'), 'nothing after the newline ran')
  ok(not c:messages():find('E%d+'), 'no error: ' .. c:messages())
end)
