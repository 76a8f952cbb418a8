-- Moving: :WharfMove (Wharf's presentMover) drawn in Neovim's picker in its folder mode, driven
-- with real keys; the buffer follows the file.
local H = require('helpers')
local eq, ok, contains = H.eq, H.ok, H.contains

--- :WharfOpen of notes.txt: the file Wharf gives Neovim, which it may then move.
local function open_notes(c)
  c:input(':WharfOpen txt<CR>')
  c:wait_picker()
  c:go('notes.txt')
  c:input('<CR>')
  c:wait(function()
    return c:lua('return vim.api.nvim_buf_get_name(0)') == c.docs .. '/notes.txt' or nil
  end, 'notes.txt opened')
  c:wait_no_picker()
end

local function buffer_name(c)
  return c:lua('return vim.api.nvim_buf_get_name(0)')
end

H.test(':WharfMove moves the file into the folder shown, and the buffer follows it', { dialogs = 2 }, function(c)
  open_notes(c)
  c:input(':WharfMove<CR>')
  local p = c:wait_picker()
  contains(p.title, 'Move notes.txt to', 'the title says what is moved')
  contains(p.title, 'Folders', 'a folder picker')
  eq('» Move here', p.lines[1], 'the action line')
  c:go('projects/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('projects', 1, true) ~= nil end, 'projects listed')
  c:input('gg<CR>')
  local path = c.docs .. '/projects/notes.txt'
  c:wait(function() return buffer_name(c) == path or nil end, 'the buffer renamed')
  eq('Buy rope.\n', H.read(path), 'the file moved')
  eq(nil, H.read(c.docs .. '/notes.txt'), 'nothing left where it was')
  eq(false, c:lua('return vim.bo.modified'), 'not modified')
  c:wait_no_picker()
  -- Neovim knows the buffer as edited there: :w writes the moved file, no E13.
  c:input('ccMore rope.<Esc>:w<CR>')
  c:wait_normal()
  ok(not c:messages():find('E13', 1, true), 'no E13: ' .. c:messages())
  eq('More rope.\n', H.read(path), ':w writes the file where it now is')
end)

H.test(':WharfMove asks about a name taken in the folder, and keeps both', { dialogs = 2 }, function(c)
  H.write(c.docs .. '/projects/notes.txt', 'older notes\n')
  open_notes(c)
  c:input(':WharfMove<CR>')
  c:wait_picker()
  c:go('projects/')
  c:input('<CR>')
  c:wait_picker(function(q) return q.title:find('projects', 1, true) ~= nil end, 'projects listed')
  c:input('gg<CR>')
  contains(c:wait_question('the name question').prompt, 'notes.txt is already in', 'the question names the file')
  c:input('2<CR>') -- Keep both
  local path = c.docs .. '/projects/notes 2.txt'
  c:wait(function() return buffer_name(c) == path or nil end, 'the buffer renamed')
  eq('Buy rope.\n', H.read(path), 'moved under a free name')
  eq('older notes\n', H.read(c.docs .. '/projects/notes.txt'), 'the other file kept')
end)

H.test(':WharfMove of a file Wharf did not give Neovim moves nothing and says why', { dialogs = 1 }, function(c)
  c:input(':edit ' .. c.docs .. '/todo.md<CR>')
  c:wait_normal()
  c:count_pickers()
  c:input(':WharfMove<CR>')
  c:wait(function()
    return c:messages():find('was not given to Neovim through Wharf', 1, true)
  end, 'the refusal')
  eq(0, c:lua('return T.pickers'), 'nothing was shown')
  eq('# Todo\n', H.read(c.docs .. '/todo.md'), 'the file where it was')
  eq(c.docs .. '/todo.md', buffer_name(c), 'the buffer as it was')
end)
