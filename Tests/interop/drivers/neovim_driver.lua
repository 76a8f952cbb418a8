-- The scenario of ../scenario.py with Neovim's vim.lsp.rpc (the transport of Neovim's LSP
-- client), unmodified:
--
--     nvim --clean --headless -l neovim_driver.lua WHARF     (the fixture as JSON in $INTEROP_FIXTURE)
--
-- vim.lsp.rpc omits params given as nil; a Lua {} is ambiguous and vim.json.encode writes it as
-- [] (an empty array, which wharf refuses as params), so an empty object is vim.empty_dict(),
-- as Neovim's own LSP code writes it. Replies are decoded with null members dropped (a null
-- result reaches the callback as nil). Waiting is vim.wait, which runs the event loop.

local CLIENT = 'vim.lsp.rpc'
local TIMEOUT_MS = 30000
local fixture = vim.json.decode(os.getenv('INTEROP_FIXTURE'))
local report = { notifications = {} }
local exit_status = nil

local function wait(predicate, what)
  local found = nil
  local ok = vim.wait(TIMEOUT_MS, function()
    found = predicate()
    return found ~= nil
  end, 10)
  if not ok then error('timed out waiting for ' .. what) end
  return found
end

local rpc = vim.lsp.rpc.start({ arg[1], '--state-dir', ':memory:', '--log-file', fixture.log }, {
  notification = function(method, params)
    table.insert(report.notifications, { method, params })
  end,
  server_request = function(method, params)
    if method ~= 'exporter/snapshot' then
      return nil, vim.lsp.rpc.rpc_response_error(-32601)
    end
    report.snapshot = params
    return { text = 'written by ' .. CLIENT .. '\n' }
  end,
  on_exit = function(code, _signal)
    exit_status = code
  end,
})

-- Sends a request and waits for its answer: the result, or nil and the error.
local function call(method, params)
  local answer = nil
  local ok = rpc.request(method, params, function(err, result)
    answer = { err = err, result = result }
  end)
  assert(ok, 'cannot send ' .. method)
  wait(function() return answer end, 'the answer to ' .. method)
  if answer.err then error(method .. ' failed: ' .. vim.inspect(answer.err)) end
  if answer.result == nil then return vim.NIL end
  return answer.result
end

local function notification(method, dialog_id)
  return wait(function()
    for _, entry in ipairs(report.notifications) do
      if entry[1] == method and entry[2].dialogId == dialog_id then return entry[2] end
    end
  end, method .. ' for ' .. dialog_id)
end

report.initialize = call('initialize', {
  processId = vim.fn.getpid(),
  clientInfo = { name = 'interop-' .. CLIENT },
  capabilities = { presentsDialogs = true },
})
rpc.notify('initialized', vim.empty_dict())

local importer = call('presentImporter', {
  allowedContentTypes = { 'public.image' }, options = { defaultDirectory = fixture.photos },
})
report.importer = importer
report.importerShown = notification('presenter/show', importer.dialogId)
report.listing = call('dialog/list', { dialogId = importer.dialogId })
local pick = {}
for _, entry in ipairs(report.listing.entries) do
  if entry.name == 'a.png' then table.insert(pick, entry.url) end
end
report.choose = call('dialog/choose', { dialogId = importer.dialogId, urls = pick })
notification('dialog/completed', importer.dialogId)

local exporter = call('presentExporter', {
  documents = { { filename = 'lazy', writableContentTypes = { 'public.plain-text' } } },
  options = { defaultDirectory = fixture.out },
})
report.exporter = exporter
report.exporterShown = notification('presenter/show', exporter.dialogId)
report.save = call('dialog/choose', { dialogId = exporter.dialogId, url = fixture.saveURL })
notification('dialog/completed', exporter.dialogId)

local cancelled = call('presentImporter', { allowedContentTypes = { 'public.item' } })
report.cancelDialog = cancelled
notification('presenter/show', cancelled.dialogId)
report.cancel = call('cancel', { dialogId = cancelled.dialogId })
notification('dialog/cancelled', cancelled.dialogId)
notification('presenter/hide', cancelled.dialogId)

-- rpc.request returns the request's id; Neovim's LSP client cancels with exactly this notify.
-- vim.lsp.rpc never hands a -32800 answer to the request's callback (it is "RPC-internal", a
-- cancellation ack): the reply is seen through notify_reply_callback, which every reply calls,
-- and a reply that reached no callback is the ack.
local slow = call('presentImporter', {
  allowedContentTypes = { 'public.item' }, options = { defaultDirectory = fixture.big },
})
report.slowDialog = slow
notification('presenter/show', slow.dialogId)
report.cancelRequest = {}
for _ = 1, 3 do
  local answer, replied = nil, false
  local _, id = rpc.request('dialog/list', { dialogId = slow.dialogId, limit = 1 }, function(err, result)
    answer = { err = err, result = result }
  end, function() replied = true end)
  rpc.notify('$/cancelRequest', { id = id })
  wait(function() return replied or nil end, 'the reply to the cancelled dialog/list')
  vim.wait(100, function() return answer ~= nil end, 10)
  if answer == nil then
    table.insert(report.cancelRequest, { code = -32800, seenAs = 'a reply that reached no callback' })
    break
  end
  table.insert(report.cancelRequest, answer.err and { code = answer.err.code } or { result = answer.result })
  if answer.err then break end
end
report.dismiss = call('dialog/dismiss', { dialogId = slow.dialogId })
notification('dialog/cancelled', slow.dialogId)

report.shutdown = call('shutdown', nil)
rpc.notify('exit', nil)
wait(function() return exit_status end, 'wharf to exit')
report.exitStatus = exit_status

local file = assert(io.open(fixture.report, 'w'))
file:write(vim.json.encode(report))
file:close()
