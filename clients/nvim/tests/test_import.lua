-- The importer drawn in Neovim, driven with real keys.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

local function import(c, tag, opts)
  opts = opts or {}
  opts.default_directory = opts.default_directory or c.docs
  c:lua('require("wharf").import(..., T.recorder(' .. vim.inspect(tag) .. '))', opts)
end

--- The highlight groups on a line of the picker.
local function highlights(c, line)
  return c:lua([[
    local buf, line = ...
    local ns = vim.api.nvim_get_namespaces().wharf
    local groups = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, { line - 1, 0 }, { line - 1, -1 }, { details = true })) do
      if m[4].hl_group then table.insert(groups, m[4].hl_group) end
    end
    return groups
  ]], c:picker().buf, line)
end

H.test('import: one file with <CR>', { dialogs = 1 }, function(c)
  import(c, 'one', { types = { 'public.plain-text' } })
  local p = c:wait_picker()
  ok(p.relative ~= '', 'a floating window')
  ok(p.current, 'the picker has the focus')
  eq('wharf', c:lua('return vim.bo.filetype'), 'filetype')
  contains(p.title, 'Plain text', 'the filter name in the title')
  contains(p.title, '~/docs', 'the folder in the title')
  -- Folders first, then names; the hidden file is not listed (no includeHiddenFiles).
  eq({ '  projects/', '  notes.txt', '  photo.png', '  todo.md' }, p.lines, 'the listing')
  c:go('notes.txt')
  c:input('<CR>')
  local r = c:wait_done('one')
  eq('completed', r.status, 'status')
  eq({ 'file://' .. c.docs .. '/notes.txt' }, r.urls, 'urls')
  eq({ c.docs .. '/notes.txt' }, r.paths, 'paths')
  c:wait_no_picker()
  eq('', c:lua('return vim.bo.filetype'), 'the focus is back in the editing window')
end)

H.test('import: several files marked with <Tab>', { dialogs = 1 }, function(c)
  import(c, 'several', { types = { 'public.text' }, multiple = true })
  local p = c:wait_picker()
  eq('» Open 0 marked', p.lines[1], 'the action line')
  c:go('notes.txt')
  c:input('<Tab>')
  c:wait_picker(function(q)
    return q.lines[c:line_of('notes.txt', q) - 1] ~= nil and q.lines[1] == '» Open 1 marked'
  end, 'one mark')
  eq('+ notes.txt', c:picker().lines[3], 'the marked line')
  eq({ 'WharfMarked' }, highlights(c, 3), 'a marked entry is highlighted')
  -- <Tab> moved the cursor down: onto photo.png (not text: refused), then todo.md.
  eq(4, c:picker().cursor[1], 'cursor after <Tab>')
  c:input('<Tab>')
  c:wait(function()
    return c:messages():find('cannot be chosen', 1, true)
  end, 'the refusal of photo.png')
  c:go('todo.md')
  c:input('<Tab>')
  c:wait_picker(function(q)
    return q.lines[1] == '» Open 2 marked'
  end, 'two marks')
  c:input('gg<CR>')
  local r = c:wait_done('several')
  eq('completed', r.status, 'status')
  eq({ c.docs .. '/notes.txt', c.docs .. '/todo.md' }, r.paths, 'paths, in the order marked')
end)

H.test('import: <Tab> unmarks; <CR> on a file chooses it with the marks', { dialogs = 1 }, function(c)
  import(c, 'mix', { types = { 'public.text' }, multiple = true })
  c:wait_picker()
  c:go('todo.md')
  c:input('<Tab>')
  c:wait_picker(function(q) return q.lines[1] == '» Open 1 marked' end, 'a mark')
  c:go('notes.txt')
  c:input('<Tab>')
  c:wait_picker(function(q) return q.lines[1] == '» Open 2 marked' end, 'two marks')
  c:go('notes.txt')
  c:input('<Tab>')
  c:wait_picker(function(q) return q.lines[1] == '» Open 1 marked' end, 'one unmarked')
  c:go('notes.txt')
  c:input('<CR>')
  local r = c:wait_done('mix')
  eq({ c.docs .. '/todo.md', c.docs .. '/notes.txt' }, r.paths, 'the mark and the file under the cursor')
end)

H.test('import: a folder', { dialogs = 1 }, function(c)
  import(c, 'folder', { directory = true })
  local p = c:wait_picker()
  contains(p.title, 'Folders', 'the filter name')
  eq('» Choose this folder', p.lines[1], 'the action line')
  -- Files are listed, dimmed, in a folder picker.
  eq({ 'WharfDisabled' }, highlights(c, c:line_of('notes.txt')), 'a file is dimmed')
  c:go('projects/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('~/docs/projects', 1, true) end, 'projects')
  c:input('gg<CR>')
  local r = c:wait_done('folder')
  eq('completed', r.status, 'status')
  eq({ c.docs .. '/projects' }, r.paths, 'the folder')
end)

H.test('import: a folder Wharf refuses is dimmed, and choosing it says why', { dialogs = 1 }, function(c)
  import(c, 'only-projects', { directory = true, url_enabled = { nameMatches = 'proj*' } })
  local p = c:wait_picker()
  eq('» Choose this folder', p.lines[1], 'the action line')
  eq({ 'WharfDisabled' }, highlights(c, 1), 'docs may not be chosen: dimmed')
  c:input('gg<CR>')
  c:wait(function()
    return c:messages():find("docs cannot be chosen: the dialog's urlEnabled predicate does not enable it", 1, true)
  end, 'the refusal, in Wharf\'s words')
  ok(c:picker(), 'the picker is still open')
  eq(0, #c:calls('only-projects'), 'nothing was chosen')
  c:go('projects/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('~/docs/projects', 1, true) end, 'projects')
  eq({ 'WharfAction' }, highlights(c, 1), 'projects may be chosen')
  c:input('gg<CR>')
  eq({ c.docs .. '/projects' }, c:wait_done('only-projects').paths, 'the folder the predicate enables')
end)

H.test('import: a folder marked with <Tab>', { dialogs = 1 }, function(c)
  import(c, 'folder', { directory = true })
  c:wait_picker()
  c:go('projects/')
  c:input('<Tab>')
  c:wait_picker(function(q) return q.lines[1] == '» Choose 1 marked' end, 'a mark')
  c:input('gg<CR>')
  eq({ c.docs .. '/projects' }, c:wait_done('folder').paths, 'the marked folder')
end)

H.test('import: navigating down, up (-) and home (~)', { dialogs = 1 }, function(c)
  import(c, 'nav', { types = { 'public.plain-text' } })
  c:wait_picker()
  c:go('projects/')
  c:input('<CR>')
  local p = c:wait_picker(function(q) return q.title:find('~/docs/projects ', 1, true) end, 'projects')
  eq({ '  deep/', '  alpha.txt' }, p.lines, 'projects')
  c:go('deep/')
  c:input('<CR>')
  p = c:wait_picker(function(q) return q.title:find('~/docs/projects/deep ', 1, true) end, 'deep')
  eq({ '  beta.txt' }, p.lines, 'deep')
  c:input('-')
  p = c:wait_picker(function(q) return q.title:find('~/docs/projects ', 1, true) end, 'back up')
  eq(c:line_of('deep/', p), p.cursor[1], 'the cursor on the folder we came from')
  c:input('-')
  c:wait_picker(function(q) return q.title:find('~/docs ', 1, true) end, 'up again')
  c:input('~')
  p = c:wait_picker(function(q) return q.title:find(' · ~ ', 1, true) end, 'home')
  eq({ '  docs/' }, p.lines, 'home')
  c:go('docs/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('~/docs ', 1, true) end, 'docs again')
  c:go('projects/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('~/docs/projects ', 1, true) end, 'projects again')
  c:go('alpha.txt')
  c:input('<CR>')
  eq({ c.docs .. '/projects/alpha.txt' }, c:wait_done('nav').paths, 'picked after navigating')
end)

H.test('import: a disabled entry is dimmed and refused', { dialogs = 1, setup = { trace = true } }, function(c)
  import(c, 'refused', { types = { 'public.plain-text' } })
  c:wait_picker()
  local line = c:line_of('photo.png')
  eq({ 'WharfDisabled' }, highlights(c, line), 'photo.png is dimmed')
  eq({}, highlights(c, c:line_of('notes.txt')), 'notes.txt is not')
  eq({ 'WharfDirectory' }, highlights(c, c:line_of('projects/')), 'a folder is a folder, not dimmed')
  c:go('photo.png')
  c:input('<CR>')
  c:wait(function()
    return c:messages():find('photo.png cannot be chosen: it is of type public.png, and this dialog takes only public.plain-text', 1, true)
  end, 'the refusal, saying why as Wharf does')
  ok(c:picker(), 'the picker is still open')
  eq(0, #c:calls('refused'), 'nothing was chosen')
  ok(not c:log():find('"method":"dialog/choose"', 1, true), 'refused by the plugin, not sent to Wharf')
  c:input('q')
  local r = c:wait_done('refused')
  eq({ status = 'cancelled', reason = 'user', kind = 'importer' }, { status = r.status, reason = r.reason, kind = r.kind }, 'dismissed')
end)

H.test('import: q dismisses', { dialogs = 1 }, function(c)
  import(c, 'q', {})
  c:wait_picker()
  c:input('q')
  local r = c:wait_done('q')
  eq('cancelled', r.status, 'status')
  eq('user', r.reason, 'reason')
  c:wait_no_picker()
end)

H.test('import: <Esc> dismisses', { dialogs = 1 }, function(c)
  import(c, 'esc', {})
  c:wait_picker()
  c:input('<Esc>')
  eq('user', c:wait_done('esc').reason, 'reason')
  c:wait_no_picker()
end)

H.test('import: closing the window (:close) dismisses', { dialogs = 1 }, function(c)
  import(c, 'close', {})
  c:wait_picker()
  c:input(':close<CR>')
  eq('user', c:wait_done('close').reason, 'reason')
  c:wait_no_picker()
end)

H.test('import: another buffer edited in the picker\'s window (:edit, :bnext) dismisses', { dialogs = 2 }, function(c)
  c:input(':badd todo.md<CR>')
  for _, keys in ipairs({ ':edit notes.txt<CR>', ':bnext<CR>' }) do
    import(c, keys, {})
    c:wait_picker()
    c:input(keys)
    local r = c:wait_done(keys)
    eq('cancelled', r.status, keys .. ': status')
    eq('user', r.reason, keys .. ': reason')
    c:wait_no_picker()
    -- The window, which now shows the human's buffer, is theirs to close.
    eq('editor', c:lua('return vim.api.nvim_win_get_config(0).relative'), keys .. ': left open')
    c:input('<C-w>c')
  end
  ok(not c:messages():find('E%d+'), 'no error: ' .. c:messages())
end)

H.test('import: the editor shrunk to a few lines and back: the window follows, the dialog goes on', { dialogs = 1 }, function(c)
  import(c, 'resize', {})
  c:wait_picker()
  -- Nothing else answers while Neovim waits at a prompt (an error's "Press ENTER"): asked first.
  local function resized(option, value)
    return function()
      local mode = vim.rpcrequest(c.chan, 'nvim_get_mode')
      ok(not mode.blocking, 'Neovim waiting at a prompt (mode ' .. mode.mode .. ')')
      return c:lua('return vim.o[...]', option) == value
    end
  end
  c:input(':set lines=4<CR>')
  c:wait(resized('lines', 4), 'the editor resized')
  c:input(':set lines=30 columns=12<CR>')
  c:wait(resized('columns', 12), 'the editor resized again')
  c:input(':set lines=24 columns=80<CR>')
  local p = c:wait_picker(function(q) return q.lines[1] == '  projects/' end, 'the picker')
  eq({}, c:calls('resize'), 'the dialog still open')
  c:go('notes.txt')
  c:input('<CR>')
  eq({ c.docs .. '/notes.txt' }, c:wait_done('resize').paths, 'chosen after the resizes')
  ok(p, 'shown')
end)

H.test('import: a rejected choice shows Wharf\'s message and keeps the window', { dialogs = 1 }, function(c)
  import(c, 'rejected', { types = { 'public.plain-text' } })
  c:wait_picker()
  -- The file goes away after it was listed: Wharf rejects the choice (choiceRejected).
  os.remove(c.docs .. '/notes.txt')
  c:go('notes.txt')
  c:input('<CR>')
  local p = c:wait_picker(function(q) return q.footer:find('notes.txt', 1, true) end, 'the message in the footer')
  contains(c:messages(), 'notes.txt', 'the message')
  ok(p, 'the picker is still open')
  eq(0, #c:calls('rejected'), 'on_done not called yet')
  c:go('todo.md')
  c:input('<CR>')
  eq({ c.docs .. '/todo.md' }, c:wait_done('rejected').paths, 'a second choice')
end)

H.test('import: . shows hidden files, and a shown one can be chosen', { dialogs = 1 }, function(c)
  import(c, 'hidden', { types = { 'public.plain-text' } })
  local p = c:wait_picker()
  ok(not vim.tbl_contains(p.lines, '  .secret.txt'), 'hidden files are not listed at first')
  c:input('.')
  c:wait_picker(function(q) return vim.tbl_contains(q.lines, '  .secret.txt') end, 'hidden files shown')
  c:input('.')
  c:wait_picker(function(q) return not vim.tbl_contains(q.lines, '  .secret.txt') end, 'hidden files hidden')
  c:input('.')
  c:wait_picker(function(q) return vim.tbl_contains(q.lines, '  .secret.txt') end, 'hidden files shown again')
  c:go('.secret.txt')
  c:input('<CR>')
  eq({ c.docs .. '/.secret.txt' }, c:wait_done('hidden').paths, 'a hidden file picked')
end)

H.test('import: show_hidden lists hidden files at first, and . hides them', { dialogs = 1 }, function(c)
  import(c, 'shown', { types = { 'public.plain-text' }, show_hidden = true })
  local p = c:wait_picker()
  c:line_of('.secret.txt', p)
  c:input('.')
  c:wait_picker(function(q) return not vim.tbl_contains(q.lines, '  .secret.txt') end, 'hidden files hidden')
  c:input('q')
  eq('cancelled', c:wait_done('shown').status, 'cancelled')
end)

H.test('import: / filters names', { dialogs = 1 }, function(c)
  import(c, 'filter', { types = { 'public.text' } })
  c:wait_picker()
  c:input('/')
  c:wait_prompt('the filter prompt')
  c:input('NOT<CR>')
  local p = c:wait_picker(function(q) return q.title:find('/NOT', 1, true) end, 'the filter in the title')
  eq({ '  notes.txt' }, p.lines, 'filtered, case-insensitively')
  c:input('/')
  c:wait_prompt('the filter prompt')
  c:input('<C-u>*.md<CR>')
  p = c:wait_picker(function(q) return q.title:find('/*.md', 1, true) end, 'a glob')
  eq({ '  todo.md' }, p.lines, 'filtered by a glob')
  c:input('/')
  c:wait_prompt('the filter prompt')
  c:input('<C-u><CR>')
  p = c:wait_picker(function(q) return #q.lines == 4 end, 'the filter cleared')
  c:input('q')
  eq('user', c:wait_done('filter').reason, 'dismissed')
end)

H.test('import: a large folder is paged as the cursor moves', {
  dialogs = 1,
  setup = { page_size = 20 },
}, function(c)
  for i = 1, 150 do
    H.write(string.format('%s/many/file-%03d.txt', c.docs, i), tostring(i))
  end
  import(c, 'paged', { types = { 'public.plain-text' }, default_directory = c.docs .. '/many' })
  local p = c:wait_picker()
  ok(#p.lines < 150, 'not everything at once (' .. #p.lines .. ' lines)')
  eq('  file-001.txt', p.lines[1], 'first')
  for _ = 1, 20 do
    c:input('G')
    p = c:picker()
    if #p.lines == 150 then
      break
    end
    vim.wait(30)
  end
  p = c:wait_picker(function(q) return #q.lines == 150 end, 'every page')
  eq('  file-150.txt', p.lines[150], 'last')
  c:input('G<CR>')
  eq({ c.docs .. '/many/file-150.txt' }, c:wait_done('paged').paths, 'the last entry picked')
end)

H.test('setup: a page_size that is not a whole number of entries is refused, naming it; paging goes on', {
  dialogs = 1,
  setup = { page_size = 20 },
}, function(c)
  -- Taken before, it made every picker fail as it opened ("dialog/list failed: limit: must be
  -- between 1 and 2147483647, got 0").
  local function setup_error(value)
    return c:lua('local ok, err = pcall(require("wharf").setup, ...); return not ok and err or nil',
      vim.tbl_extend('force', c.setup, { page_size = value }))
  end
  for _, case in ipairs({ { 0, '0' }, { -5, '-5' }, { 2.5, '2.5' }, { 2147483648, '2147483648' } }) do
    contains(setup_error(case[1]), 'wharf: page_size must be a whole number of entries from 1 to 2147483647, not '
      .. case[2], 'page_size ' .. case[2])
  end
  contains(setup_error('20'), 'wharf: setup option page_size: expected number, got string "20"', 'a string')
  contains(setup_error(true), 'wharf: setup option page_size: expected number, got boolean true', 'a boolean')
  eq(20, c:lua('return require("wharf.config").options.page_size'), 'the page size in force is kept')
  -- And the picker pages with it.
  for i = 1, 30 do
    H.write(string.format('%s/many/file-%03d.txt', c.docs, i), tostring(i))
  end
  import(c, 'paged', { default_directory = c.docs .. '/many' })
  local p = c:wait_picker()
  eq(20, #p.lines, 'one page of 20 at first')
  c:input('G')
  p = c:wait_picker(function(q) return #q.lines == 30 end, 'the second page')
  c:input('G<CR>')
  eq({ c.docs .. '/many/file-030.txt' }, c:wait_done('paged').paths, 'the last entry picked')
end)

H.test('import: a name filter sees every page', {
  dialogs = 1,
  setup = { page_size = 10 },
}, function(c)
  for i = 1, 60 do
    H.write(string.format('%s/many/file-%03d.txt', c.docs, i), tostring(i))
  end
  import(c, 'pagefilter', { types = { 'public.plain-text' }, default_directory = c.docs .. '/many' })
  c:wait_picker()
  c:input('/')
  c:wait_prompt()
  c:input('-050<CR>')
  local p = c:wait_picker(function(q) return #q.lines == 1 and q.lines[1] == '  file-050.txt' end, 'a match from the last pages')
  c:input('<CR>')
  eq({ c.docs .. '/many/file-050.txt' }, c:wait_done('pagefilter').paths, 'picked')
  ok(p, 'shown')
end)

H.test('import: control characters in names reach the border as ^I, ^[, not as they are', { dialogs = 1 }, function(c)
  local dir = c.docs .. '/tab\there\27[31m'
  H.write(dir .. '/a\tb.png', 'x')
  import(c, 'ctrl', { types = { 'public.plain-text' }, default_directory = dir })
  local p = c:wait_picker()
  ok(not p.title:find('%c'), 'no control character in the title: ' .. vim.inspect(p.title))
  contains(p.title, 'tab^Ihere^[[31m', 'the folder shown')
  c:input('<CR>') -- a dimmed file: why goes to the footer
  p = c:wait_picker(function(q) return q.footer:find('cannot be chosen', 1, true) end, 'the refusal')
  ok(not p.footer:find('%c'), 'no control character in the footer: ' .. vim.inspect(p.footer))
  contains(c:messages(), 'wharf: a^Ib.png cannot be chosen', 'the message shown as the footer is')
  c:input('q')
  eq('user', c:wait_done('ctrl').reason, 'dismissed')
end)

H.test('import: names are decoded byte for byte', { dialogs = 1 }, function(c)
  -- A name that is not UTF-8 too: dialog/list percent-encodes its bytes in the URL (its `name`
  -- shows U+FFFD), and url.to_path decodes %FF back to the byte.
  local names = { 'a b%20#?.txt', 'été.txt', 'tab\there.txt', 'x\255y.txt' }
  for _, name in ipairs(names) do
    H.write(c.docs .. '/odd/' .. name, 'odd')
  end
  import(c, 'odd', { multiple = true, default_directory = c.docs .. '/odd' })
  local p = c:wait_picker()
  eq(5, #p.lines, 'the action line and four names')
  for line = 2, 5 do
    c:input(line .. 'G<Tab>')
  end
  c:wait_picker(function(q) return q.lines[1] == '» Open 4 marked' end, 'four marks')
  c:input('gg<CR>')
  local r = c:wait_done('odd')
  eq('completed', r.status, 'status')
  local got = vim.deepcopy(r.paths)
  table.sort(got)
  local want = {}
  for _, name in ipairs(names) do
    table.insert(want, c.docs .. '/odd/' .. name)
  end
  table.sort(want)
  eq(want, got, 'paths')
  for _, u in ipairs(r.urls) do
    ok(not u:find('[^%w%%%-%._~/:]'), 'an ASCII URL: ' .. u)
  end
end)

H.test('the footer offers <Tab> only where it marks: a multiple importer, not a single pick nor a Save', {
  dialogs = 3,
}, function(c)
  -- <Tab> in a single pick or a Save dialog only says "this dialog takes one file", yet the
  -- footer offered "<Tab> mark" in every dialog.
  c:lua('vim.o.columns = 200')
  import(c, 'several', { multiple = true })
  contains(c:wait_picker().footer, '<Tab> mark', 'a multiple importer')
  c:input('q')
  c:wait_no_picker()
  import(c, 'one', {})
  local footer = c:wait_picker().footer
  contains(footer, '<CR> open', 'the keys are shown')
  ok(not footer:find('<Tab>', 1, true), 'no <Tab> in a single pick: ' .. footer)
  c:input('q')
  c:wait_no_picker()
  c:input(':WharfSaveAs<CR>')
  footer = c:wait_picker().footer
  ok(not footer:find('<Tab>', 1, true), 'no <Tab> in a Save dialog: ' .. footer)
  c:input('q')
  c:wait_no_picker()
end)

H.test("import: the app's filters with t, its choices with c", { dialogs = 1 }, function(c)
  import(c, 'filters', {
    filters = { { name = 'Text', predicate = { nameMatches = '*.txt' } },
                { name = 'Markdown', predicate = { nameMatches = '*.md' } } },
    choices = { { id = 'encoding', label = 'Encoding',
                  options = { { id = 'utf8', label = 'UTF-8' }, { id = 'latin1', label = 'Latin-1' } } },
                { id = 'readonly', label = 'Read only' } },
  })
  local p = c:wait_picker()
  contains(p.title, 'Text', 'the filter in force in the title')
  c:input('t')
  eq('Filter', c:wait_question('the filter menu').prompt, 'the filter menu')
  c:input('2<CR>')
  c:wait_picker(function(q)
    return q.title:find('Markdown', 1, true) ~= nil
  end, 'Markdown in force')
  c:input('c')
  eq('Choices', c:wait_question('the choices').prompt, 'the choice menu')
  c:input('1<CR>') -- Encoding
  eq('Encoding', c:wait_question('the options').prompt, 'the options of Encoding')
  c:input('2<CR>') -- Latin-1
  c:wait_normal()
  c:input('c')
  c:wait_question('the choices again')
  c:input('2<CR>') -- Read only: toggled on
  c:wait_normal()
  -- A text file is refused under Markdown, saying which filter.
  c:go('notes.txt')
  c:input('<CR>')
  c:wait(function()
    return c:messages():find('does not match the filter', 1, true)
  end, 'the refusal of notes.txt')
  c:go('todo.md')
  c:input('<CR>')
  local r = c:wait_done('filters')
  eq('completed', r.status, 'status')
  eq({ c.docs .. '/todo.md' }, r.paths, 'paths')
  eq(1, r.filter, 'the filter in force')
  eq({ encoding = 'latin1', readonly = 'true' }, r.choices, 'the choices')
end)
