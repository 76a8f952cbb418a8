-- A Lua {} as params, as a Neovim plugin writes it: vim.json.encode makes it [] (Lua cannot
-- tell an empty object from an empty array), so vim.lsp.rpc sends "params": [].
--
--     nvim --clean --headless -l neovim_empty_table.lua WHARF     (fixture in $INTEROP_FIXTURE)
--
-- Writes {"ping": {"result"|"error"}, "listAccess": …, "exitStatus"} to the report.
local fixture = vim.json.decode(os.getenv('INTEROP_FIXTURE'))
local report, exit_status = {}, nil
local rpc = vim.lsp.rpc.start({ arg[1], '--state-dir', ':memory:', '--log-file', fixture.log }, {
  on_exit = function(code) exit_status = code end,
})

local function call(method, params)
  local answer = nil
  rpc.request(method, params, function(err, result) answer = { error = err, result = result } end)
  assert(vim.wait(30000, function() return answer ~= nil end, 10), 'no answer to ' .. method)
  if answer.error then return { error = { code = answer.error.code, message = answer.error.message } } end
  return { result = answer.result == nil and vim.NIL or answer.result }
end

call('initialize', { processId = vim.fn.getpid(), clientInfo = { name = 'interop-empty-table' },
                     capabilities = vim.empty_dict() })
report.ping = call('ping', {})
report.listAccess = call('listAccess', {})
call('shutdown', nil)
rpc.notify('exit', nil)
assert(vim.wait(30000, function() return exit_status ~= nil end, 10), 'wharf did not exit')
report.exitStatus = exit_status
local file = assert(io.open(fixture.report, 'w'))
file:write(vim.json.encode(report))
file:close()
