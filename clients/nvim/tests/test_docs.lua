-- The documentation is true: its Lua compiles, the README's API example runs as written, the
-- screenshot it shows exists, every command the plugin defines is documented.
local H = require('helpers')
local eq, ok = H.eq, H.ok

local function lua_blocks(text, fence_open)
  local blocks = {}
  for block in text:gmatch(fence_open .. '\n(.-)\n```') do
    table.insert(blocks, block)
  end
  return blocks
end

H.test('docs: every Lua block of the README and the help compiles', { dialogs = 0 }, function()
  local readme = H.read(H.plugin_dir .. '/README.md')
  local blocks = lua_blocks(readme, '```lua')
  ok(#blocks >= 4, 'README has Lua blocks (' .. #blocks .. ')')
  for i, block in ipairs(blocks) do
    -- A lazy.nvim spec is a bare table: compile it as an expression.
    local chunk, err = loadstring(block)
    if not chunk then
      chunk, err = loadstring('return ' .. block)
    end
    ok(chunk, 'README Lua block ' .. i .. ': ' .. tostring(err))
  end
  local help = H.read(H.plugin_dir .. '/doc/wharf.txt')
  local n = 0
  for block in help:gmatch('>lua\n(.-)\n<') do
    n = n + 1
    local code = block:gsub('\n    ', '\n'):gsub('^    ', '')
    local chunk, err = loadstring(code)
    ok(chunk, 'help Lua block ' .. n .. ': ' .. tostring(err))
  end
  ok(n >= 4, 'the help has Lua examples (' .. n .. ')')
  for image in readme:gmatch('!%[[^%]]*%]%(([^)]+)%)') do
    ok(vim.uv.fs_stat(H.plugin_dir .. '/' .. image), 'the README\'s image ' .. image .. ' exists')
  end
end)

H.test('docs: the README\'s API example runs as written', { dialogs = 2 }, function(c)
  local readme = H.read(H.plugin_dir .. '/README.md')
  local example
  for _, block in ipairs(lua_blocks(readme, '```lua')) do
    if block:find('wharf.import(', 1, true) and block:find('wharf.export(', 1, true) then
      example = block
    end
  end
  ok(example, 'the API example')
  c:lua(example)
  -- Two pickers, the exporter's (opened last) over the importer's; each dismissed with q.
  local function current_picker()
    return c:lua([[if vim.bo.filetype == 'wharf' then return {
      title = vim.api.nvim_win_get_config(0).title[1][1], first = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] } end]])
  end
  c:wait(function()
    local p = current_picker()
    return p and p.first == '» Save here as report.txt…'
  end, 'the exporter, focused')
  c:input('q')
  c:wait(function()
    local p = current_picker()
    return p and p.title:find('Image', 1, true)
  end, 'the importer, focused again')
  c:input('q')
  c:wait_no_picker()
  eq('cancelled: user', c:wait(function()
    local m = c:messages()
    return m:match('cancelled: user')
  end, 'the example\'s message'), 'printed by the example')
end)

H.test('docs: every command the plugin defines is in the README\'s table and the help', { dialogs = 0 }, function(c)
  local commands = c:lua([[
    local names = {}
    for name, def in pairs(vim.api.nvim_get_commands({ builtin = false })) do
      if name:match('^Wharf') then
        table.insert(names, name)
        assert(def.definition ~= '', name .. ' has no desc')
      end
    end
    table.sort(names)
    return names
  ]])
  ok(#commands >= 4, 'the plugin\'s commands (' .. #commands .. ')')
  local readme = H.read(H.plugin_dir .. '/README.md')
  local help = H.read(H.plugin_dir .. '/doc/wharf.txt')
  for _, name in ipairs(commands) do
    ok(readme:find('\n| `:' .. name .. '[` ]'), 'README\'s command table has :' .. name)
    ok(help:find('*:' .. name .. '*', 1, true), 'the help has a tag for :' .. name)
  end
end)
