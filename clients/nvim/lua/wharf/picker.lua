--- The dialog drawn inside Neovim (the frontend presenter): a floating window over the folder
--- `dialog/list` returns, answered with `dialog/choose`, `dialog/dismiss` or `dialog/fail`.
--- A mover is a folder picker whose action line moves its files into the folder shown.
---
--- Every entry point (keys, answers from Wharf, prompts, autocommands) runs guarded: a Lua error
--- anywhere in here closes the window and gives the dialog up with `dialog/fail`, so no dialog is
--- ever left open behind a broken window.
local client = require('wharf.client')
local config = require('wharf.config')
local url = require('wharf.url')

local M = {}

local ns = vim.api.nvim_create_namespace('wharf')

local CHOICE_REJECTED = -32015
local FILE_EXISTS = -32016
local NAME_CONFLICT = -32031
local DIALOG_NOT_FOUND = -32013
local DIALOG_ENDED = -32014
local METHOD_NOT_FOUND = -32601

local function define_highlights()
  local links = {
    WharfDirectory = 'Directory',
    WharfDisabled = 'Comment',
    WharfMarked = 'DiagnosticOk',
    WharfAction = 'Title',
    WharfDetail = 'Comment',
    WharfNote = 'Comment',
    WharfError = 'ErrorMsg',
  }
  for name, target in pairs(links) do
    vim.api.nvim_set_hl(0, name, { link = target, default = true })
  end
end

local Picker = {}
Picker.__index = Picker

-- MARK: Small helpers

local function human_size(bytes)
  if type(bytes) ~= 'number' then
    return ''
  end
  local units = { 'B', 'K', 'M', 'G', 'T' }
  local size, unit = bytes, 1
  while size >= 1024 and unit < #units do
    size = size / 1024
    unit = unit + 1
  end
  if unit == 1 then
    return string.format('%d B', size)
  end
  return string.format(size < 10 and '%.1f %s' or '%.0f %s', size, units[unit])
end

local function short_date(iso)
  if type(iso) ~= 'string' then
    return ''
  end
  local date, time = iso:match('^(%d+%-%d+%-%d+)T(%d+:%d+)')
  return date and (date .. ' ' .. time) or iso
end

--- A path for people: `~` for home.
local function display_path(dir_url)
  local path = url.to_path(dir_url) or dir_url
  local home = vim.env.HOME
  if home and home ~= '' and home ~= '/' then
    if path == home then
      return '~'
    elseif path:sub(1, #home + 1) == home .. '/' then
      return '~' .. path:sub(#home + 1)
    end
  end
  return path
end

--- Text for the window's border as Neovim shows text in a buffer (`^I`, `^[`, `<ff>`): the
--- border puts a title's characters on the screen as they are, and a tab or an escape in a
--- folder's or file's name would move the terminal's cursor or start an escape sequence there.
local function printable(text)
  return vim.fn.strtrans(text)
end

local function capitalized(text)
  return (text:gsub('^%l', string.upper))
end

local function basename_of(u)
  local path = url.to_path(u) or u
  return path:match('([^/]*)/*$')
end

--- Whether the name prompt gives `name` back as it went in. Neovim's own prompt turns a newline,
--- carriage return or escape in what it is prefilled with into a space and reads bytes that are
--- not UTF-8 as Latin-1; a prompt drawn in a buffer (a `vim.ui.input` replacement) cannot hold
--- a newline at all. Such a name would be saved as another, new file.
local function promptable(name)
  return url.is_utf8(name) and not name:find('%c')
end

--- A filter pattern for people: a plain substring, or a glob when it has `*`, `?` or `[`;
--- case-insensitive either way.
local function name_matcher(pattern)
  if not pattern or pattern == '' then
    return function()
      return true
    end
  end
  if pattern:find('[%*%?%[]') then
    local ok, regex = pcall(vim.regex, '\\c' .. vim.fn.glob2regpat(pattern))
    if ok then
      return function(name)
        return regex:match_str(name) ~= nil
      end
    end
  end
  local needle = pattern:lower()
  return function(name)
    return name:lower():find(needle, 1, true) ~= nil
  end
end

-- MARK: Opening and closing

--- Shows the dialog `show` (the `presenter/show` params) for `dialog`; returns the picker.
function M.open(dialog, show)
  define_highlights()
  local self = setmetatable({
    dialog = dialog,
    show = show,
    kind = show.kind,
    multiple = show.allowsMultipleSelection == true,
    folder_picker = show.kind == 'mover' or (show.kind == 'importer' and show.filters and show.filters.directories == true) or false,
    document_count = show.documentCount or 1,
    content_types = show.contentTypes or {},
    -- The app's named filters (importers): the one in force is sent with every listing and
    -- choice (`filter`, an index from 0 as the protocol counts).
    named_filters = show.kind == 'importer' and show.namedFilters or {},
    filter_index = show.currentFilter or 0,
    -- The app's choices and the human's value of each, by id.
    choices = show.choices or {},
    choice_values = {},
    type_info = {},
    marks = {},
    mark_order = {},
    entries = {},
    rows = {},
    -- Whether hidden files are listed: at first as the app asked (includeHiddenFiles), then as
    -- the human toggles them with ".".
    show_hidden = vim.tbl_contains(show.browserOptions or {}, 'includeHiddenFiles'),
    filter = nil,
    generation = 0,
    closed = false,
    notice = nil,
  }, Picker)
  self.page_size = config.options.page_size
  for _, choice in ipairs(self.choices) do
    self.choice_values[choice.id] = choice.initial
  end
  local ok, err = xpcall(function()
    self:create_window()
    self:render()
    self:describe_types()
    self:list(show.directory)
  end, debug.traceback)
  if not ok then
    self:crash(err)
  end
  return self
end

function Picker:guard(fn)
  return function(...)
    if self.closed then
      return
    end
    local args = { ... }
    local n = select('#', ...)
    local ok, err = xpcall(function()
      return fn(unpack(args, 1, n))
    end, debug.traceback)
    if not ok then
      self:crash(err)
    end
  end
end

--- A Lua error inside the presenter: the window goes, and the dialog is given up with the error
--- as its message (`dialog/fail`; `dialog/dismiss` for a server without it).
function Picker:crash(err)
  local text = tostring(err)
  client.log('presenter error: ' .. text)
  local first = text:match('^[^\n]*')
  local was_closed = self.closed
  self:close()
  if was_closed or self.dialog.done or not self.dialog.id then
    return
  end
  vim.notify('wharf: the dialog failed: ' .. first, vim.log.levels.ERROR)
  local dialog = self.dialog
  local id = dialog.id
  dialog:request('dialog/fail', { dialogId = id, message = first }, function(fail_err)
    if fail_err and fail_err.code == METHOD_NOT_FOUND then
      dialog:request('dialog/dismiss', { dialogId = id }, function(dismiss_err)
        dialog:give_up_if_timeout(dismiss_err)
      end)
    else
      dialog:give_up_if_timeout(fail_err)
    end
  end)
end

function Picker:window_geometry()
  local opts = config.options.window or {}
  local columns, lines = vim.o.columns, vim.o.lines - vim.o.cmdheight - 1
  --- At least one cell: in an editor shrunk to a few lines or columns (a resized terminal or
  --- tmux pane) the window is small, not an error that would fail the dialog.
  local function size(value, total, minimum)
    value = value or 0.6
    local cells = value <= 1 and math.floor(total * value) or math.floor(value)
    return math.max(1, math.min(cells, total - 4), math.min(minimum, total - 2))
  end
  local width = size(opts.width, columns, 50)
  local height = size(opts.height, lines, 8)
  return {
    relative = 'editor',
    width = width,
    height = height,
    row = math.max(0, math.floor((lines - height) / 2) - 1),
    col = math.max(0, math.floor((columns - width) / 2)),
    border = opts.border or 'rounded',
    style = 'minimal',
  }
end

function Picker:create_window()
  self.origin_win = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  self.buf = buf
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, 'wharf://' .. (self.dialog.id or 'dialog'))
  local win_config = self:window_geometry()
  win_config.title = self:title()
  win_config.title_pos = 'left'
  win_config.footer = self:footer()
  win_config.footer_pos = 'left'
  self.win = vim.api.nvim_open_win(buf, true, win_config)
  if vim.fn.mode():find('^[iR]') then
    -- A dialog that arrives while typing: the picker's keys are normal-mode keys.
    vim.cmd.stopinsert()
  end
  vim.wo[self.win].cursorline = true
  vim.wo[self.win].wrap = false
  vim.wo[self.win].number = false
  self:map_keys()
  local group = vim.api.nvim_create_augroup('wharf_picker_' .. buf, { clear = true })
  self.augroup = group
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    pattern = tostring(self.win),
    callback = self:guard(function()
      -- Closed by hand (`:q`, <C-w>c): that is the human dismissing the dialog.
      self:dismiss()
    end),
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    callback = function()
      -- The window kept, its buffer gone (`:edit file` or `:bnext` in it; 'bufhidden' is
      -- wipe): the picker is gone, and with it the dialog, as if closed by hand. Not from inside
      -- the wipe, which is still switching the window to its next buffer: that window, now the
      -- human's, is left open.
      vim.schedule(self:guard(function()
        self:dismiss()
      end))
    end,
  })
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    buffer = buf,
    callback = self:guard(function()
      self:maybe_load_more()
    end),
  })
  vim.api.nvim_create_autocmd('VimResized', {
    group = group,
    callback = self:guard(function()
      if self.win and vim.api.nvim_win_is_valid(self.win) then
        local geometry = self:window_geometry()
        geometry.style = nil
        geometry.border = nil
        vim.api.nvim_win_set_config(self.win, geometry)
        self:render()
      end
    end),
  })
  -- Set last: a FileType autocommand of the user's sees a complete window.
  vim.bo[buf].filetype = 'wharf'
end

function Picker:map_keys()
  local keys = {
    ['<CR>'] = self.activate,
    ['<Tab>'] = self.toggle_mark,
    ['-'] = self.go_parent,
    ['~'] = self.go_home,
    ['.'] = self.toggle_hidden,
    ['/'] = self.prompt_filter,
    ['q'] = self.dismiss,
    ['<Esc>'] = self.dismiss,
    ['?'] = self.help,
    ['t'] = self.pick_filter,
    ['c'] = self.pick_choice,
  }
  for lhs, fn in pairs(keys) do
    vim.keymap.set('n', lhs, self:guard(function()
      fn(self)
    end), { buffer = self.buf, nowait = true, silent = true, desc = 'wharf' })
  end
end

--- Takes the window down (the dialog itself is ended by whoever called this).
function Picker:close()
  if self.closed then
    return
  end
  self.closed = true
  if self.augroup then
    pcall(vim.api.nvim_del_augroup_by_id, self.augroup)
  end
  local win = self.win
  -- Only while it shows the picker: a window whose buffer the human replaced is theirs now.
  if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == self.buf then
    local focused = vim.api.nvim_get_current_win() == win
    pcall(vim.api.nvim_win_close, win, true)
    if focused and self.origin_win and vim.api.nvim_win_is_valid(self.origin_win) then
      pcall(vim.api.nvim_set_current_win, self.origin_win)
    end
  end
  if self.buf and vim.api.nvim_buf_is_valid(self.buf) then
    pcall(vim.api.nvim_buf_delete, self.buf, { force = true })
  end
end

function Picker:dismiss()
  local dialog = self.dialog
  local id = dialog.id
  self:close()
  if id and not dialog.done then
    dialog:request('dialog/dismiss', { dialogId = id }, function(err)
      dialog:give_up_if_timeout(err)
    end)
  end
end

-- MARK: What it shows

function Picker:default_verb()
  if self.kind == 'exporter' then
    return 'Save'
  end
  if self.kind == 'mover' then
    return 'Move'
  end
  return self.folder_picker and 'Choose' or 'Open'
end

--- The filter's name: what may be picked, in people's words.
function Picker:filter_name()
  local named = self.named_filters[self.filter_index + 1]
  if named then
    return named.name
  end
  local filters = self.show.filters or {}
  local globs, mimes = filters.globs or {}, filters.mimeTypes or {}
  if self.kind == 'exporter' then
    local chosen = self.chosen_type or self.content_types[1]
    local info = chosen and self.type_info[chosen]
    return info and info.description and capitalized(info.description) or chosen or ''
  end
  -- No globs and no MIME types is not enough for "All files": a type Wharf knows by no name
  -- pattern (one it made up for an unknown extension) has none either, and takes no file.
  -- A server that does not say allowsAllFiles is taken at its globs.
  if #globs == 0 and #mimes == 0 then
    if filters.directories then
      -- `public.item` (`wharf pick` with no type): files and folders.
      return filters.allowsAllFiles == true and 'All files and folders' or 'Folders'
    end
    if filters.allowsAllFiles ~= false then
      return 'All files'
    end
  end
  local names = {}
  for _, identifier in ipairs(self.show.allowedContentTypes or {}) do
    local info = self.type_info[identifier]
    local name = info and info.description or identifier
    table.insert(names, #names == 0 and capitalized(name) or name)
  end
  return table.concat(names, ', ')
end

--- A mover's heading: what it moves (`Move a.txt to`, `Move a.txt, b.txt to`).
function Picker:mover_heading()
  local names = {}
  for _, u in ipairs((self.show.mover or {}).urls or {}) do
    table.insert(names, basename_of(u))
  end
  return 'Move ' .. table.concat(names, ', ') .. ' to'
end

function Picker:title()
  local heading = self.kind == 'mover' and self:mover_heading()
    or (self:default_verb() .. (self.kind == 'exporter' and '' or (self.folder_picker and ' Folder' or '')))
  local parts = { self.show.title or heading }
  local filter = self:filter_name()
  if filter ~= '' then
    table.insert(parts, filter)
  end
  table.insert(parts, self.dir and display_path(self.dir) or '…')
  if self.filter then
    table.insert(parts, '/' .. self.filter)
  end
  local text = ' ' .. printable(table.concat(parts, ' · ')) .. ' '
  local width = (self.win and vim.api.nvim_win_is_valid(self.win)) and vim.api.nvim_win_get_width(self.win)
    or self:window_geometry().width
  -- Another app's dialog (drawn for the desktop, `:WharfServeDesktop`) names that app first,
  -- and keeps it when the rest is cut: it is who the person answers.
  local asker = self.dialog.asker and (' ' .. printable(self.dialog.asker) .. ':') or ''
  local room = width - 2 - vim.fn.strdisplaywidth(asker)
  if room < 12 then
    asker, room = '', width - 2
  end
  if vim.fn.strdisplaywidth(text) > room then
    text = ' …' .. vim.fn.strcharpart(text, vim.fn.strchars(text) - (room - 3))
  end
  return asker .. text
end

--- Whether <Tab> marks entries: in an importer of several, or of a folder.
function Picker:can_mark()
  return self.kind == 'importer' and (self.multiple or self.folder_picker)
end

function Picker:footer()
  if self.notice then
    return { { ' ' .. printable(self.notice.text) .. ' ', self.notice.hl } }
  end
  if self.show.message and self.show.message ~= '' then
    return { { ' ' .. printable(self.show.message) .. ' ', 'WharfNote' } }
  end
  local width = (self.win and vim.api.nvim_win_is_valid(self.win)) and vim.api.nvim_win_get_width(self.win)
    or self:window_geometry().width
  -- <Tab> only where it marks (toggle_mark): elsewhere it says the dialog takes one.
  local mark = self:can_mark() and '<Tab> mark · ' or ''
  for _, keys in ipairs({
    ' <CR> open · ' .. mark .. '- up · ~ home · . hidden · / filter · q cancel · ? help ',
    ' <CR> open · ' .. mark .. '- up · ~ home · / filter · q cancel · ? help ',
    ' <CR> open · - up · / filter · q cancel · ? help ',
  }) do
    if vim.fn.strdisplaywidth(keys) <= width - 2 then
      return { { keys, 'WharfNote' } }
    end
  end
  return { { ' ? help ', 'WharfNote' } }
end

--- Shows a line of text in the window's footer until the next one (and echoes it, unless it is
--- about `err`, a timeout, which the client has told the user of already). The echo is shown as
--- the footer is: the text often names a file, whose newline would split the message.
function Picker:say(text, level, err)
  self.notice = { text = text, hl = level == vim.log.levels.ERROR and 'WharfError' or 'WarningMsg' }
  if not client.is_timeout(err) then
    vim.notify('wharf: ' .. printable(text), level or vim.log.levels.WARN)
  end
  self:update_frame()
end

-- The action line would choose the folder shown, and Wharf says it may not be chosen.
function Picker:folder_refused()
  return self.folder_picker and #self.mark_order == 0 and self.dir_enabled == false
end

-- A dimmed entry was picked: say why, in Wharf's words when it gives them (disabledReason).
function Picker:refuse(entry)
  local why = entry.disabledReason and (': ' .. entry.disabledReason) or ' in this dialog'
  self:say(entry.name .. ' cannot be chosen' .. why)
end

function Picker:update_frame()
  if self.win and vim.api.nvim_win_is_valid(self.win) then
    vim.api.nvim_win_set_config(self.win, {
      title = self:title(),
      title_pos = 'left',
      footer = self:footer(),
      footer_pos = 'left',
    })
  end
end

function Picker:visible_entries()
  local matches = name_matcher(self.filter)
  local visible = {}
  for _, entry in ipairs(self.entries) do
    if matches(entry.name or '') then
      table.insert(visible, entry)
    end
  end
  return visible
end

function Picker:action_text()
  local label = self.show.confirmationLabel
  if label == vim.NIL or label == '' then
    label = nil
  end
  local marked = #self.mark_order
  if self.kind == 'exporter' then
    if self.document_count > 1 then
      return string.format('» %s %d documents here', label or 'Save', self.document_count)
    end
    return string.format('» %s here as %s…', label or 'Save', self:suggested_name())
  end
  if self.kind == 'mover' then
    return '» ' .. (label or 'Move') .. ' here'
  end
  if self.folder_picker and marked == 0 then
    return '» ' .. (label or 'Choose') .. ' this folder'
  end
  if self.multiple or marked > 0 then
    return string.format('» %s %d marked', label or (self.folder_picker and 'Choose' or 'Open'), marked)
  end
  return nil
end

function Picker:render()
  if self.closed or not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  local rows, lines = {}, {}
  local action = self:action_text()
  if action then
    table.insert(rows, { kind = 'action' })
    table.insert(lines, action)
  end
  local visible = self:visible_entries()
  for _, entry in ipairs(visible) do
    table.insert(rows, { kind = 'entry', entry = entry })
    local mark = self.marks[entry.url] and '+ ' or '  '
    -- Names go on one line each: a newline in a name is shown as the control character.
    local name = (entry.name or ''):gsub('\n', '\0')
    table.insert(lines, mark .. name .. (entry.isDirectory and '/' or ''))
  end
  if not self.dir then
    table.insert(rows, { kind = 'note' })
    table.insert(lines, '  loading…')
  elseif #visible == 0 then
    table.insert(rows, { kind = 'note' })
    if self.filter and #self.entries > 0 then
      table.insert(lines, '  (nothing matches /' .. self.filter .. ')')
    else
      table.insert(lines, '  (empty folder)')
    end
  end
  self.rows = rows
  vim.bo[self.buf].modifiable = true
  vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.bo[self.buf].modifiable = false
  vim.bo[self.buf].modified = false
  vim.api.nvim_buf_clear_namespace(self.buf, ns, 0, -1)
  for i, row in ipairs(rows) do
    local line = i - 1
    if row.kind == 'action' then
      local hl = self:folder_refused() and 'WharfDisabled' or 'WharfAction'
      vim.api.nvim_buf_set_extmark(self.buf, ns, line, 0, { end_col = #lines[i], hl_group = hl })
    elseif row.kind == 'note' then
      vim.api.nvim_buf_set_extmark(self.buf, ns, line, 0, { end_col = #lines[i], hl_group = 'WharfNote' })
    else
      local entry = row.entry
      -- Folders are for browsing: dimmed only where folders are what is chosen (a folder
      -- picker) and this one may not be; elsewhere `enabled` says whether it can be chosen.
      local hl
      if self.marks[entry.url] then
        hl = 'WharfMarked'
      elseif entry.isDirectory and (entry.enabled or not self.folder_picker) then
        hl = 'WharfDirectory'
      elseif not entry.enabled then
        hl = 'WharfDisabled'
      end
      local detail = entry.isDirectory and '' or human_size(entry.size)
      detail = detail .. '  ' .. short_date(entry.modified)
      vim.api.nvim_buf_set_extmark(self.buf, ns, line, 0, {
        end_col = #lines[i],
        hl_group = hl,
        virt_text = { { detail, (entry.enabled or entry.isDirectory) and 'WharfDetail' or 'WharfDisabled' } },
        virt_text_pos = 'right_align',
        hl_mode = 'combine',
      })
    end
  end
  if self.next_cursor and #rows > 0 then
    vim.api.nvim_buf_set_extmark(self.buf, ns, #rows - 1, 0, {
      virt_lines = { { { '  … more below', 'WharfNote' } } },
    })
  end
  self:update_frame()
end

--- Puts the cursor on the first row showing `target_url` (else on the first entry).
function Picker:place_cursor(target_url)
  if not (self.win and vim.api.nvim_win_is_valid(self.win)) then
    return
  end
  local line
  for i, row in ipairs(self.rows) do
    if row.kind == 'entry' then
      if target_url and row.entry.url == target_url then
        line = i
        break
      end
      line = line or i
    end
  end
  vim.api.nvim_win_set_cursor(self.win, { line or 1, 0 })
end

function Picker:current_row()
  if not (self.win and vim.api.nvim_win_is_valid(self.win)) then
    return nil
  end
  local line = vim.api.nvim_win_get_cursor(self.win)[1]
  return self.rows[line], line
end

-- MARK: Listing

function Picker:describe_types()
  local identifiers = {}
  for _, id in ipairs(self.show.allowedContentTypes or {}) do
    table.insert(identifiers, id)
  end
  for _, id in ipairs(self.content_types) do
    table.insert(identifiers, id)
  end
  if #identifiers == 0 then
    return
  end
  self.dialog:request('contentTypes/describe', { identifiers = identifiers }, self:guard(function(err, result)
    if err or not result then
      return
    end
    for _, info in ipairs(result.types or {}) do
      if info.identifier and not info.error then
        self.type_info[info.identifier] = info
      end
    end
    self:render()
  end))
end

--- Lists `directory` (a URL or path; nil: where the dialog is), replacing what is shown.
function Picker:list(directory, cursor_on)
  self.generation = self.generation + 1
  local generation = self.generation
  local params = { dialogId = self.dialog.id, limit = self.page_size, showHidden = self.show_hidden }
  if #self.named_filters > 0 then
    params.filter = self.filter_index
  end
  if directory then
    params.directory = directory
  end
  self.loading = true
  self.dialog:request('dialog/list', params, self:guard(function(err, result)
    if generation ~= self.generation then
      return
    end
    self.loading = false
    if err then
      if err.code == DIALOG_ENDED or err.code == DIALOG_NOT_FOUND then
        self:close()
        return
      end
      self:say(err.message or 'could not list the folder', vim.log.levels.ERROR, err)
      if not self.dir then
        -- Nothing to show at all: give the dialog up rather than leave it hanging.
        error('dialog/list failed: ' .. tostring(err.message))
      end
      return
    end
    self.dir = result.directory
    -- Whether the folder itself may be chosen (nil from a Wharf that does not say: try it).
    self.dir_enabled = result.directoryEnabled
    self.dir_disabled_reason = result.directoryDisabledReason
    self.parent = result.parent
    self.entries = result.entries or {}
    self.next_cursor = result.nextCursor
    self.notice = nil
    self:render()
    self:place_cursor(cursor_on)
    self:maybe_load_more()
  end))
end

--- Fetches the next page when the cursor nears the end, when the window is not full yet, or
--- while a name filter is on (it must see every name).
function Picker:maybe_load_more()
  if self.loading or not self.next_cursor or self.closed then
    return
  end
  local _, line = self:current_row()
  local height = (self.win and vim.api.nvim_win_is_valid(self.win)) and vim.api.nvim_win_get_height(self.win) or 0
  local near_end = line and line >= #self.rows - 2
  if not (near_end or #self.rows < height or self.filter) then
    return
  end
  local generation = self.generation
  self.loading = true
  self.dialog:request('dialog/list', {
    dialogId = self.dialog.id,
    directory = self.dir,
    cursor = self.next_cursor,
    limit = self.page_size,
  }, self:guard(function(err, result)
    if generation ~= self.generation then
      return
    end
    self.loading = false
    if err then
      self.next_cursor = nil
      self:say(err.message or 'could not list more', vim.log.levels.ERROR, err)
      self:render()
      return
    end
    local keep = self.win and vim.api.nvim_win_is_valid(self.win) and vim.api.nvim_win_get_cursor(self.win)
    vim.list_extend(self.entries, result.entries or {})
    self.next_cursor = result.nextCursor
    self:render()
    if keep then
      pcall(vim.api.nvim_win_set_cursor, self.win, keep)
    end
    self:maybe_load_more()
  end))
end

-- MARK: Keys

function Picker:go_parent()
  if not self.dir then
    return
  end
  if not self.parent then
    self:say('already at /')
    return
  end
  self:list(self.parent, self.dir)
end

function Picker:go_home()
  local home = vim.env.HOME
  if not home or home == '' then
    home = vim.uv.os_homedir()
  end
  self:list(url.from_path(home))
end

--- Shows or hides hidden files: Wharf lists the folder again with or without them (a hidden file
--- the human has shown may be chosen, as in any desktop's dialog).
function Picker:toggle_hidden()
  self.show_hidden = not self.show_hidden
  local row = self:current_row()
  self:list(self.dir, row and row.entry and row.entry.url)
end

function Picker:prompt_filter()
  vim.ui.input({ prompt = 'Filter names: ', default = self.filter or '' }, self:guard(function(text)
    if text == nil then
      return
    end
    self.filter = text ~= '' and text or nil
    self:render()
    self:place_cursor()
    self:maybe_load_more()
  end))
end

--- `params` with what the human selected besides the files: the filter in force and the
--- choices' values (the server keeps them too; sent so the choice is judged by them).
function Picker:with_selections(params)
  if #self.named_filters > 0 then
    params.filter = self.filter_index
  end
  if #self.choices > 0 then
    params.choices = vim.deepcopy(self.choice_values)
  end
  return params
end

--- `t`: one of the app's named filters; the folder is listed again under it.
function Picker:pick_filter()
  if #self.named_filters < 2 then
    self:say(#self.named_filters == 1 and ('this dialog has one filter: ' .. self.named_filters[1].name)
      or 'this dialog has no filters to choose from')
    return
  end
  local names = {}
  for _, f in ipairs(self.named_filters) do
    table.insert(names, f.name)
  end
  vim.ui.select(names, { prompt = 'Filter', kind = 'wharf.filter' }, self:guard(function(_, index)
    if not index or self.closed then
      return
    end
    self.filter_index = index - 1
    self:render()
    self:list(self.dir)
  end))
end

--- How a choice shows in the `c` menu: a check box, or the option selected.
function Picker:choice_label(choice)
  local value = self.choice_values[choice.id]
  if not choice.options or #choice.options == 0 then
    return (value == 'true' and '[x] ' or '[ ] ') .. choice.label
  end
  for _, option in ipairs(choice.options) do
    if option.id == value then
      return choice.label .. ': ' .. option.label
    end
  end
  return choice.label .. ': ' .. tostring(value)
end

--- `c`: the app's choices; a check box toggles, an option list asks for one of its options.
function Picker:pick_choice()
  if #self.choices == 0 then
    self:say('this dialog has no choices')
    return
  end
  vim.ui.select(self.choices, {
    prompt = 'Choices',
    kind = 'wharf.choice',
    format_item = function(choice)
      return self:choice_label(choice)
    end,
  }, self:guard(function(choice)
    if not choice or self.closed then
      return
    end
    if not choice.options or #choice.options == 0 then
      self.choice_values[choice.id] = self.choice_values[choice.id] == 'true' and 'false' or 'true'
      self:say(self:choice_label(choice))
      return
    end
    vim.ui.select(choice.options, {
      prompt = choice.label,
      kind = 'wharf.choice_option',
      format_item = function(option)
        return option.label
      end,
    }, self:guard(function(option)
      if option and not self.closed then
        self.choice_values[choice.id] = option.id
        self:say(self:choice_label(choice))
      end
    end))
  end))
end

function Picker:help()
  local lines = {
    '<CR>   open a folder, choose a file (or run the » line)',
    '<Tab>  mark or unmark for a multiple selection',
    '-      parent folder        ~   home folder',
    '.      show or hide hidden files',
    '/      filter names (a substring, or a glob with * ? [)',
    "t      the app's filter (when it names several): what may be chosen",
    "c      the app's choices (check boxes, options); they come back with the pick",
    'q <Esc> cancel the dialog',
  }
  vim.notify(table.concat(lines, '\n'), vim.log.levels.INFO)
end

function Picker:toggle_mark()
  local row, line = self:current_row()
  if not row or row.kind ~= 'entry' then
    return
  end
  local entry = row.entry
  if not self:can_mark() then
    self:say('this dialog takes one ' .. (self.folder_picker and 'folder' or 'file'))
    return
  end
  if not entry.enabled then
    self:refuse(entry)
    return
  end
  if self.marks[entry.url] then
    self.marks[entry.url] = nil
    for i, u in ipairs(self.mark_order) do
      if u == entry.url then
        table.remove(self.mark_order, i)
        break
      end
    end
  else
    if not self.multiple and #self.mark_order > 0 then
      -- One only: the new mark replaces the old.
      self.marks = {}
      self.mark_order = {}
    end
    self.marks[entry.url] = entry
    table.insert(self.mark_order, entry.url)
  end
  local had_action = self.rows[1] and self.rows[1].kind == 'action'
  self:render()
  local has_action = self.rows[1] and self.rows[1].kind == 'action'
  local next_line = line + 1 + ((has_action and 1 or 0) - (had_action and 1 or 0))
  pcall(vim.api.nvim_win_set_cursor, self.win, { math.min(next_line, #self.rows), 0 })
end

function Picker:activate()
  local row = self:current_row()
  if not row or row.kind == 'note' then
    return
  end
  if row.kind == 'action' then
    if self.kind == 'exporter' then
      self:save_flow(nil)
    elseif self.kind == 'mover' and not self:folder_refused() then
      self:move(self.dir, nil)
    elseif #self.mark_order > 0 then
      self:choose(vim.deepcopy(self.mark_order))
    elseif self:folder_refused() then
      local why = self.dir_disabled_reason and (': ' .. self.dir_disabled_reason) or ' in this dialog'
      self:say(basename_of(self.dir) .. ' cannot be chosen' .. why)
    elseif self.folder_picker then
      self:choose({ self.dir })
    else
      self:say('mark entries with <Tab> first')
    end
    return
  end
  local entry = row.entry
  if entry.isDirectory then
    self:list(entry.url)
    return
  end
  if not entry.enabled then
    self:refuse(entry)
    return
  end
  if self.kind == 'exporter' then
    self:save_flow(entry)
    return
  end
  if self.kind == 'mover' then
    self:say('a mover takes a folder: <CR> on the » line moves here')
    return
  end
  local urls = vim.deepcopy(self.mark_order)
  if not self.marks[entry.url] then
    if not self.multiple then
      urls = {}
    end
    table.insert(urls, entry.url)
  end
  self:choose(urls)
end

-- MARK: Choosing

--- An answer to `dialog/choose` that is not a success: a rejection keeps the window open with
--- Wharf's message; a dialog that has ended takes the window down.
function Picker:rejected(err)
  if err.code == DIALOG_ENDED or err.code == DIALOG_NOT_FOUND then
    self:close()
    return
  end
  local level = err.code == CHOICE_REJECTED and vim.log.levels.WARN or vim.log.levels.ERROR
  self:say(err.message or 'the choice was refused', level, err)
end

function Picker:choose(urls)
  if self.choosing then
    return
  end
  self.choosing = true
  self.dialog:request('dialog/choose', self:with_selections({ dialogId = self.dialog.id, urls = urls }), self:guard(function(err)
    self.choosing = false
    if err then
      self:rejected(err)
      return
    end
    self:close()
  end))
end

--- The name Wharf suggests for the type chosen so far: the one `contentTypeChoices` gives for
--- it (Wharf's own rule, the name it would write); from a server older than that, the first
--- type's name with the extension swapped here.
function Picker:suggested_name()
  local chosen_type = self.chosen_type or self.content_types[1]
  for _, choice in ipairs(self.show.contentTypeChoices or {}) do
    local names = choice.filenames
    if choice.contentType == chosen_type and type(names) == 'table' and type(names[1]) == 'string' then
      return names[1]
    end
  end
  local name = self.show.filename
  if type(name) ~= 'string' or name == '' then
    name = 'Untitled'
  end
  local first, chosen = self.content_types[1], self.chosen_type
  if chosen and first and chosen ~= first then
    local old = self.type_info[first] and self.type_info[first].preferredFilenameExtension
    local new = self.type_info[chosen] and self.type_info[chosen].preferredFilenameExtension
    if type(old) == 'string' and old ~= '' and name:sub(-(#old + 1)) == '.' .. old then
      name = name:sub(1, -(#old + 2))
    end
    if type(new) == 'string' and new ~= '' then
      name = name .. '.' .. new
    end
  end
  return name
end

function Picker:type_label(identifier)
  local info = self.type_info[identifier]
  if info and info.description then
    local ext = info.preferredFilenameExtension
    return string.format('%s (%s%s)', capitalized(info.description), identifier,
      (type(ext) == 'string' and ext ~= '') and (', .' .. ext) or '')
  end
  return identifier
end

--- Export: the type (when there are several), the name (one document), then `dialog/choose`,
--- asking before replacing a file. `entry` is a file the human pointed at: its exact name (from
--- its URL: Wharf's `name` is lossy for bytes that are not UTF-8) prefills the prompt, or, when
--- the prompt cannot hold that name, the file itself is the choice.
function Picker:save_flow(entry)
  if self.choosing then
    return
  end
  local name = entry and basename_of(entry.url)
  local function ask_name()
    if self.document_count > 1 then
      self:save(self.dir, false)
      return
    end
    if name and not promptable(name) then
      self:save(entry.url, false)
      return
    end
    local label = self.show.filenameLabel
    if label == vim.NIL or not label or label == '' then
      label = 'Save as'
    end
    vim.ui.input({ prompt = label .. ': ', default = name or self:suggested_name() }, self:guard(function(text)
      if not text or vim.trim(text) == '' then
        return
      end
      self:save(url.join(self.dir, text), false)
    end))
  end
  if #self.content_types > 1 then
    vim.ui.select(self.content_types, {
      prompt = 'Save as type',
      format_item = function(identifier)
        return self:type_label(identifier)
      end,
      kind = 'wharf.content_type',
    }, self:guard(function(choice)
      if not choice then
        return
      end
      self.chosen_type = choice
      self:render()
      ask_name()
    end))
  else
    ask_name()
  end
end

--- Mover: moves the files into `folder`. Names taken there are asked about (Replace, Keep
--- both, Cancel), as the desktop's file managers ask, and the move tried again with the answer.
function Picker:move(folder, resolution)
  if self.choosing then
    return
  end
  self.choosing = true
  local params = { dialogId = self.dialog.id, url = folder, conflictResolution = resolution }
  self.dialog:request('dialog/choose', self:with_selections(params), self:guard(function(err)
    self.choosing = false
    if not err then
      self:close()
      return
    end
    if err.code == NAME_CONFLICT and not resolution then
      local names = type(err.data) == 'table' and err.data.names or {}
      local what = #names == 1 and (printable(names[1]) .. ' is') or (tostring(#names) .. ' names are')
      vim.ui.select({ 'Replace', 'Keep both', 'Cancel' }, {
        prompt = what .. ' already in ' .. display_path(folder) .. '.',
        kind = 'wharf.name_conflict',
      }, self:guard(function(choice)
        if choice == 'Replace' then
          self:move(folder, 'replace')
        elseif choice == 'Keep both' then
          self:move(folder, 'keepBoth')
        end
      end))
      return
    end
    self:rejected(err)
  end))
end

function Picker:save(target, overwrite)
  self.choosing = true
  local params = { dialogId = self.dialog.id, url = target, overwrite = overwrite }
  if self.chosen_type then
    params.contentType = self.chosen_type
  end
  self.dialog:request('dialog/choose', self:with_selections(params), self:guard(function(err)
    self.choosing = false
    if not err then
      self:close()
      return
    end
    if err.code == FILE_EXISTS and not overwrite then
      local what = self.document_count > 1 and 'Some of these files already exist.'
        or (printable(basename_of(target)) .. ' already exists.')
      vim.ui.select({ 'Replace', 'Cancel' }, {
        prompt = what .. ' Replace?',
        kind = 'wharf.overwrite',
      }, self:guard(function(choice)
        if choice == 'Replace' then
          self:save(target, true)
        end
      end))
      return
    end
    self:rejected(err)
  end))
end

return M
