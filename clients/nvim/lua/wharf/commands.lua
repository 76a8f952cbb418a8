--- What `:WharfOpen`, `:WharfSaveAs`, `:WharfMove`, `:WharfAccess` and `:WharfStop` do.
local client = require('wharf.client')
local wharf = require('wharf')

local M = {}

local function notify(text, level)
  vim.notify('wharf: ' .. text, level or vim.log.levels.INFO)
end

--- A path for messages and questions, as Neovim shows a name with control characters (`^@` for
--- a newline, `^[` for an escape), like the picker's border: raw, a newline would split the name
--- over two lines and an escape would reach the terminal.
local function shown(path)
  return vim.fn.strtrans(vim.fn.fnamemodify(path, ':~'))
end

local function report_failure(result)
  if result.status == 'failed' then
    -- A timeout: the client has said which request Wharf did not answer.
    if not client.is_timeout(result.error) then
      notify(string.format('%s (%s)', result.error.message or 'failed', tostring(result.error.code)), vim.log.levels.ERROR)
    end
  elseif result.status == 'cancelled' and result.reason ~= 'user' then
    notify('dialog cancelled: ' .. tostring(result.reason), vim.log.levels.WARN)
  end
end

-- MARK: :WharfOpen

--- Content types for the words given to `:WharfOpen`: an identifier (it has a dot inside:
--- `public.image`) as it is; a filename extension (`md`, `.md`) through Wharf
--- (`contentTypes/fromFilenameExtension`). `callback(err, types)`.
function M.resolve_types(words, callback)
  local types, pending, failed = {}, 0, nil
  for i, word in ipairs(words) do
    local ext = word:match('^%.(.+)$') or (not word:find('.', 1, true) and word) or nil
    if ext then
      pending = pending + 1
      client.request('contentTypes/fromFilenameExtension', { filenameExtension = ext }, function(err, result)
        pending = pending - 1
        if err or not result or not result.identifier then
          failed = failed or ('no content type for .' .. ext .. (err and (': ' .. err.message) or ''))
        else
          types[i] = result.identifier
        end
        if pending == 0 then
          callback(failed, failed == nil and types or nil)
        end
      end)
    else
      types[i] = word
    end
  end
  if pending == 0 then
    callback(nil, types)
  end
end

--- Opens the picked files in buffers: the first in the current window, the rest listed.
function M.edit_paths(paths)
  local opened = {}
  for _, path in ipairs(paths) do
    if path then
      table.insert(opened, path)
    end
  end
  for i = #opened, 1, -1 do
    vim.cmd.badd(vim.fn.fnameescape(opened[i]))
  end
  if opened[1] then
    local ok, err = pcall(vim.cmd.edit, vim.fn.fnameescape(opened[1]))
    if not ok then
      notify(tostring(err), vim.log.levels.ERROR)
    end
  end
  if #opened > 1 then
    notify(string.format('opened %d files', #opened))
  end
end

---@param words string[] content types or extensions; none: any file
function M.open(words)
  local function present(types)
    wharf.import({
      types = (types and #types > 0) and types or nil,
      multiple = true,
      default_directory = vim.fn.getcwd(),
      customization_id = 'nvim.open',
    }, function(result)
      if result.status == 'completed' then
        M.edit_paths(result.paths)
      else
        report_failure(result)
      end
    end)
  end
  if #words == 0 then
    present(nil)
    return
  end
  M.resolve_types(words, function(err, types)
    if err then
      notify(err, vim.log.levels.ERROR)
      return
    end
    present(types)
  end)
end

-- MARK: :WharfSaveAs

--- The encodings Neovim writes with a byte order mark when 'bomb' is set, and the mark.
local boms = {
  ['utf-8'] = '\239\187\191',
  ['utf-16'] = '\254\255',
  ['utf-16le'] = '\255\254',
  ['ucs-2'] = '\254\255',
  ['ucs-2le'] = '\255\254',
  ['ucs-4'] = '\0\0\254\255',
  ['ucs-4le'] = '\255\254\0\0',
}

--- iconv's names for Neovim's Unicode encodings (which have a fixed byte order in Neovim).
local iconv_names = {
  ['utf-16'] = 'UTF-16BE',
  ['utf-16le'] = 'UTF-16LE',
  ['ucs-2'] = 'UCS-2BE',
  ['ucs-2le'] = 'UCS-2LE',
  ['ucs-4'] = 'UCS-4BE',
  ['ucs-4le'] = 'UCS-4LE',
}

--- The bytes `:write` would put in a file for buffer `buf`: its lines joined by the
--- 'fileformat' line ending, a final one unless 'endofline' and 'fixendofline' (or 'binary')
--- say not, converted to 'fileencoding', with a byte order mark when 'bomb' asks.
---@param buf integer
---@return string
function M.buffer_bytes(buf)
  local bo = vim.bo[buf]
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local ending = ({ dos = '\r\n', mac = '\r' })[bo.fileformat] or '\n'
  local empty = #lines == 1 and lines[1] == '' and vim.api.nvim_buf_call(buf, function()
    return vim.fn.wordcount().bytes
  end) == 0
  if empty then
    return ''
  end
  local final = bo.endofline or (bo.fixendofline and not bo.binary)
  local text = table.concat(lines, ending) .. (final and ending or '')
  local fenc = bo.fileencoding
  if fenc == '' then
    fenc = vim.o.encoding
  end
  fenc = fenc:lower():gsub('^utf8$', 'utf-8')
  if fenc ~= 'utf-8' and not bo.binary then
    local converted = vim.iconv(text, 'utf-8', iconv_names[fenc] or fenc)
    if not converted then
      error(string.format("cannot convert the buffer to 'fileencoding' %s", fenc))
    end
    text = converted
  end
  if bo.bomb and not bo.binary and boms[fenc] then
    text = boms[fenc] .. text
  end
  return text
end

--- A content type for the buffer: from its name's extension (`contentTypes/fromFilenameExtension`),
--- else plain text for an unnamed buffer and `public.data` for a name without an extension.
local function buffer_type(name, callback)
  local base = name ~= '' and vim.fs.basename(name) or nil
  local ext = base and base:match('.%.([^.]+)$')
  if not base then
    callback('public.plain-text')
    return
  end
  if not ext then
    callback('public.data')
    return
  end
  client.request('contentTypes/fromFilenameExtension', { filenameExtension = ext }, function(err, result)
    callback((not err and result and result.identifier) or 'public.data')
  end)
end

--- Points the buffer at the file it was saved as, like `:saveas`: the old name becomes the
--- alternate file; an unchanged buffer is read back from the new file (the same bytes) so that
--- Neovim knows it as edited there (a later `:write` needs no `!`), with undo kept.
local function adopt(buf, path, tick, done)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local other
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf and vim.api.nvim_buf_get_name(b) == path then
      other = b
    end
  end
  if other then
    -- Like :saveas (E139), a file open in another buffer is not taken over.
    notify(string.format('%s %s; it is also open in buffer %d, so this buffer keeps its name', done or 'saved', shown(path), other),
      vim.log.levels.WARN)
    return false
  end
  local win = vim.fn.bufwinid(buf)
  -- The structured form: a command line would end at a newline in the name, and run the rest
  -- of the name as another command.
  local function rename()
    vim.cmd.file(vim.fn.fnameescape(path))
  end
  if win == -1 then
    vim.api.nvim_buf_call(buf, rename)
    if tick and vim.api.nvim_buf_get_changedtick(buf) == tick then
      vim.bo[buf].modified = false
    end
    return true
  end
  vim.api.nvim_win_call(win, function()
    local unchanged = tick ~= nil and vim.api.nvim_buf_get_changedtick(buf) == tick
    rename()
    if unchanged then
      local view = vim.fn.winsaveview()
      local undoreload = vim.o.undoreload
      vim.o.undoreload = math.max(undoreload, vim.api.nvim_buf_line_count(buf) + 1)
      local ok, err = pcall(vim.cmd, 'silent keepalt keepjumps edit!')
      vim.o.undoreload = undoreload
      vim.fn.winrestview(view)
      if not ok then
        notify(tostring(err), vim.log.levels.ERROR)
      end
    end
  end)
  return true
end

---@param buf? integer default: the current buffer
function M.save_as(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local name = vim.api.nvim_buf_get_name(buf)
  local tick
  buffer_type(name, function(content_type)
    local dir = name ~= '' and vim.fs.dirname(name) or vim.fn.getcwd()
    if vim.fn.isdirectory(dir) == 0 then
      dir = vim.fn.getcwd()
    end
    wharf.export({
      documents = {
        {
          filename = name ~= '' and vim.fs.basename(name) or 'Untitled',
          types = { content_type },
          snapshot = function()
            if not vim.api.nvim_buf_is_valid(buf) then
              error('the buffer is gone')
            end
            tick = vim.api.nvim_buf_get_changedtick(buf)
            return { bytes = M.buffer_bytes(buf) }
          end,
        },
      },
      default_directory = dir,
    }, function(result)
      if result.status ~= 'completed' then
        report_failure(result)
        return
      end
      local path = result.paths[1]
      if path and adopt(buf, path, tick) then
        notify('saved ' .. shown(path))
      end
    end)
  end)
end

-- MARK: :WharfMove

local ACCESS_DENIED = -32020

--- Moves the buffer's file into a folder the human chooses (`presentMover`), and the buffer
--- follows it: it is renamed to the new place, an unchanged one read back from there (the same
--- bytes) so that Neovim knows it as edited there. Wharf moves only files it gave this session
--- (opened with `:WharfOpen`, saved with `:WharfSaveAs`).
---@param buf? integer default: the current buffer
function M.move(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then
    notify('the buffer has no file to move', vim.log.levels.WARN)
    return
  end
  wharf.move({ paths = { name }, default_directory = vim.fs.dirname(name), customization_id = 'nvim.move' }, function(result)
    if result.status ~= 'completed' then
      if result.status == 'failed' and result.error.code == ACCESS_DENIED then
        notify(string.format('%s was not given to Neovim through Wharf, which moves only such files: open it with '
          .. ':WharfOpen (or save it with :WharfSaveAs) first', shown(name)), vim.log.levels.WARN)
        return
      end
      report_failure(result)
      return
    end
    local path = result.paths[1]
    if not path then
      return
    end
    local tick = vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].modified and vim.api.nvim_buf_get_changedtick(buf) or nil
    if adopt(buf, path, tick, 'moved to') then
      notify('moved to ' .. shown(path))
    end
  end)
end

-- MARK: :WharfAccess

local access_ns = vim.api.nvim_create_namespace('wharf_access')

--- A window listing this session's grants and this app's bookmarks; `x` revokes the one under
--- the cursor, `<CR>` opens it, `r` refreshes, `q` closes.
function M.access()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  local width = math.max(60, math.floor(vim.o.columns * 0.7))
  width = math.min(width, vim.o.columns - 4)
  local height = math.max(6, math.floor(vim.o.lines * 0.5))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    border = require('wharf.config').options.window.border or 'rounded',
    style = 'minimal',
    title = ' Wharf access · ' .. require('wharf.config').options.app .. ' ',
    footer = ' <CR> open · x revoke · r refresh · q close ',
  })
  vim.wo[win].cursorline = true
  local entries = {}

  local function draw(lines)
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.api.nvim_buf_clear_namespace(buf, access_ns, 0, -1)
    for i, entry in ipairs(entries) do
      vim.api.nvim_buf_set_extmark(buf, access_ns, i - 1, 0, {
        virt_text = { { string.format('%s  leases %d', (entry.created or ''):gsub('T', ' '):gsub('Z$', ''), entry.activeLeases or 0), 'Comment' } },
        virt_text_pos = 'right_align',
      })
    end
  end

  local function refresh()
    wharf.list_access(function(err, list)
      if err then
        entries = {}
        draw({ '  ' .. (err.message or 'listAccess failed') })
        return
      end
      entries = list
      local lines = {}
      for _, entry in ipairs(list) do
        local path = entry.path or require('wharf.url').to_path(entry.url) or entry.url
        -- One line per entry, as in the picker: a newline in a name is shown as ^@ (a buffer
        -- line cannot hold a newline, and the whole list failed to draw).
        local shown = vim.fn.fnamemodify(path, ':~'):gsub('\n', '\0')
        table.insert(lines, string.format('%-8s %s %s%s', entry.kind, entry.readOnly and 'ro' or 'rw',
          shown, entry.isDirectory and '/' or ''))
      end
      if #lines == 0 then
        lines = { '  (no grants or bookmarks)' }
      end
      draw(lines)
    end)
  end

  local function current()
    return entries[vim.api.nvim_win_get_cursor(win)[1]]
  end

  local function map(lhs, fn)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true })
  end
  map('q', function()
    pcall(vim.api.nvim_win_close, win, true)
  end)
  map('<Esc>', function()
    pcall(vim.api.nvim_win_close, win, true)
  end)
  map('r', refresh)
  map('<CR>', function()
    local entry = current()
    if entry then
      pcall(vim.api.nvim_win_close, win, true)
      vim.cmd.edit(vim.fn.fnameescape(entry.path or require('wharf.url').to_path(entry.url)))
    end
  end)
  map('x', function()
    local entry = current()
    if not entry then
      return
    end
    local label = entry.kind .. ' ' .. shown(entry.path or entry.url)
    vim.ui.select({ 'Revoke', 'Keep' }, { prompt = 'Revoke ' .. label .. '?', kind = 'wharf.revoke' }, function(choice)
      if choice ~= 'Revoke' then
        return
      end
      local what = entry.kind == 'bookmark' and entry.bookmark and { bookmark = entry.bookmark } or { url = entry.url }
      wharf.revoke_access(what, function(err, count)
        if err then
          if not client.is_timeout(err) then -- else the client has said so
            notify(err.message or 'revokeAccess failed', vim.log.levels.ERROR)
          end
        else
          notify(string.format('revoked %d', count or 0))
        end
        refresh()
      end)
    end)
  end)
  vim.bo[buf].filetype = 'wharfaccess'
  draw({ '  loading…' })
  refresh()
  return buf, win
end

-- MARK: :WharfStop

--- What the user is told after `:WharfStop`, by how the process ended: a Wharf that had to be
--- killed is said to be, as its dialogs failed rather than being cancelled.
local stopped = {
  exited = { '', vim.log.levels.INFO },
  terminated = { ', ended with SIGTERM: it did not exit when asked', vim.log.levels.WARN },
  killed = { ', killed: it did not exit when asked', vim.log.levels.WARN },
}

--- Ends the running session (`wharf.stop()`): the way out of a Wharf that stopped answering.
--- Returns at once; the user is told how it ended when it has.
function M.stop()
  local status = wharf.status()
  if not status.running then
    notify('not running')
    return
  end
  wharf.stop(function(pid, how)
    local said = stopped[how]
    if not said then
      notify(string.format('pid %s did not end even when killed; the next dialog starts a new wharf', tostring(pid)),
        vim.log.levels.ERROR)
      return
    end
    notify(string.format('stopped (pid %s%s); the next dialog starts it again', tostring(pid), said[1]), said[2])
  end)
end

return M
