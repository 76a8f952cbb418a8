--- One importer, exporter or mover: its params, its events, and the one call of `on_done`.
local client = require('wharf.client')
local url = require('wharf.url')

local M = {}

local INVALID_PARAMS = -32602
local INTERNAL_ERROR = -32603

local Dialog = {}
Dialog.__index = Dialog

-- MARK: Params, from Lua-style options

--- An absolute path for a user-given one (`~` is home); nothing else in it is expanded.
local function absolute(path)
  if path == '~' then
    path = vim.env.HOME or path
  elseif path:sub(1, 2) == '~/' then
    path = (vim.env.HOME or '~') .. path:sub(2)
  end
  if path:sub(1, 1) ~= '/' then
    path = vim.fn.getcwd() .. '/' .. path
  end
  return path
end
M.absolute = absolute

local function list_of_strings(value, name)
  if value == nil then
    return nil
  end
  if type(value) == 'string' then
    return { value }
  end
  if type(value) ~= 'table' then
    error({ field = name, message = name .. ': expected a string or a list of strings, got ' .. type(value) })
  end
  for i, item in ipairs(value) do
    if type(item) ~= 'string' then
      error({ field = name, message = string.format('%s[%d]: expected a string, got %s', name, i, type(item)) })
    end
  end
  return vim.deepcopy(value)
end

local function expect(value, kind, name)
  if value ~= nil and type(value) ~= kind then
    error({ field = name, message = string.format('%s: expected a %s, got %s', name, kind, type(value)) })
  end
  return value
end

--- Lua option -> Wharf option, for what both dialogs share.
local option_names = {
  title = { 'title', 'string' },
  message = { 'message', 'string' },
  confirmation_label = { 'confirmationLabel', 'string' },
  customization_id = { 'customizationId', 'string' },
  timeout_ms = { 'timeoutMs', 'number' },
  url_enabled = { 'urlEnabled', 'table' },
  imports_unresolved_aliases = { 'importsUnresolvedAliases', 'boolean' },
  filters = { 'filters', 'table' },
  current_filter = { 'currentFilter', 'number' },
  choices = { 'choices', 'table' },
}

local browser_flags = {
  show_hidden = 'includeHiddenFiles',
  enumerate_packages = 'enumeratePackages',
  display_file_extensions = 'displayFileExtensions',
}

local shared_keys = { default_directory = true, browser_options = true, presentation_id = true }
for key in pairs(option_names) do
  shared_keys[key] = true
end
for key in pairs(browser_flags) do
  shared_keys[key] = true
end

local function dialog_options(opts, kind)
  local options = {}
  for key, spec in pairs(option_names) do
    if opts[key] ~= nil then
      options[spec[1]] = expect(opts[key], spec[2], key)
    end
  end
  if kind == 'exporter' and opts.filename_label ~= nil then
    options.filenameLabel = expect(opts.filename_label, 'string', 'filename_label')
  end
  if opts.default_directory ~= nil then
    expect(opts.default_directory, 'string', 'default_directory')
    options.defaultDirectory = url.from_path(absolute(opts.default_directory))
  end
  local browser = list_of_strings(opts.browser_options, 'browser_options') or {}
  for key, name in pairs(browser_flags) do
    if expect(opts[key], 'boolean', key) and not vim.tbl_contains(browser, name) then
      table.insert(browser, name)
    end
  end
  if #browser > 0 then
    table.sort(browser)
    options.browserOptions = browser
  end
  return options
end

local function check_keys(opts, allowed)
  for key in pairs(opts) do
    if not shared_keys[key] and not allowed[key] then
      error({ field = key, message = key .. ': not an option (see :help wharf-options)' })
    end
  end
end

--- presentImporter params for `wharf.import` options.
function M.importer_params(opts)
  check_keys(opts, { types = true, multiple = true, directory = true })
  local types = list_of_strings(opts.types, 'types')
  if expect(opts.directory, 'boolean', 'directory') then
    types = types or {}
    if not vim.tbl_contains(types, 'public.folder') then
      table.insert(types, 'public.folder')
    end
  end
  if not types or #types == 0 then
    types = { 'public.data' }
  end
  local params = {
    allowedContentTypes = types,
    allowsMultipleSelection = expect(opts.multiple, 'boolean', 'multiple') or false,
  }
  if opts.presentation_id ~= nil then
    params.presentationId = expect(opts.presentation_id, 'string', 'presentation_id')
  end
  local options = dialog_options(opts, 'importer')
  if next(options) then
    params.options = options
  end
  return params
end

--- A document's `contents` for bytes: text when they are UTF-8 (JSON carries them as they are),
--- base64 otherwise, so the file gets exactly these bytes either way.
function M.contents_for_bytes(bytes)
  if url.is_utf8(bytes) then
    return { text = bytes }
  end
  return { base64 = vim.base64.encode(bytes) }
end

--- What a snapshot function (or a document) gave, as `contents`: a string is bytes; a table is
--- one of `{text=}`, `{base64=}`, `{bytes=}`, `{path=}`.
function M.contents(value)
  if type(value) == 'string' then
    return M.contents_for_bytes(value)
  end
  if type(value) ~= 'table' then
    return nil, 'a snapshot must return a string or a table with text, bytes, base64 or path, not ' .. type(value)
  end
  if type(value.text) == 'string' then
    if url.is_utf8(value.text) then
      return { text = value.text }
    end
    return { base64 = vim.base64.encode(value.text) }
  elseif type(value.bytes) == 'string' then
    return M.contents_for_bytes(value.bytes)
  elseif type(value.base64) == 'string' then
    return { base64 = value.base64 }
  elseif type(value.path) == 'string' then
    return { path = url.from_path(absolute(value.path)) }
  end
  return nil, 'a snapshot table needs text, bytes, base64 or path'
end

local document_keys = { filename = true, types = true, text = true, bytes = true, path = true, snapshot = true }

--- presentExporter params for `wharf.export` options, and the documents (for their snapshots).
function M.exporter_params(opts)
  check_keys(opts, { documents = true, content_type = true, content_types = true, default_filename = true })
  local documents = opts.documents
  if type(documents) ~= 'table' or #documents == 0 then
    error({ field = 'documents', message = 'documents: a non-empty list is needed' })
  end
  local docs = {}
  for i, doc in ipairs(documents) do
    local name = 'documents[' .. i .. ']'
    if type(doc) ~= 'table' then
      error({ field = name, message = name .. ': expected a table' })
    end
    for key in pairs(doc) do
      if not document_keys[key] then
        error({ field = name, message = name .. '.' .. key .. ': not a document field' })
      end
    end
    local default_type = (doc.text ~= nil or doc.snapshot ~= nil) and 'public.plain-text' or 'public.data'
    local entry = {
      writableContentTypes = list_of_strings(doc.types, name .. '.types') or { default_type },
    }
    if doc.filename ~= nil then
      entry.filename = expect(doc.filename, 'string', name .. '.filename')
    end
    if doc.snapshot ~= nil then
      expect(doc.snapshot, 'function', name .. '.snapshot')
    elseif doc.text ~= nil then
      entry.contents = M.contents({ text = expect(doc.text, 'string', name .. '.text') })
    elseif doc.bytes ~= nil then
      entry.contents = M.contents({ bytes = expect(doc.bytes, 'string', name .. '.bytes') })
    elseif doc.path ~= nil then
      entry.contents = M.contents({ path = expect(doc.path, 'string', name .. '.path') })
    else
      error({ field = name, message = name .. ': needs text, bytes, path or a snapshot function' })
    end
    docs[i] = entry
  end
  local params = { documents = docs }
  if opts.content_type ~= nil then
    params.contentType = expect(opts.content_type, 'string', 'content_type')
  end
  if opts.content_types ~= nil then
    params.contentTypes = list_of_strings(opts.content_types, 'content_types')
  end
  if opts.default_filename ~= nil then
    params.defaultFilename = expect(opts.default_filename, 'string', 'default_filename')
  end
  if opts.presentation_id ~= nil then
    params.presentationId = expect(opts.presentation_id, 'string', 'presentation_id')
  end
  local options = dialog_options(opts, 'exporter')
  if next(options) then
    params.options = options
  end
  return params
end

--- presentMover params for `wharf.move` options: `paths` (or `urls`), the files to move.
function M.mover_params(opts)
  check_keys(opts, { paths = true, urls = true })
  if opts.paths ~= nil and opts.urls ~= nil then
    error({ field = 'paths', message = 'paths and urls: give one or the other' })
  end
  local urls = list_of_strings(opts.urls, 'urls')
  if opts.paths ~= nil then
    urls = {}
    for i, path in ipairs(list_of_strings(opts.paths, 'paths')) do
      urls[i] = url.from_path(absolute(path))
    end
  end
  if not urls or #urls == 0 then
    error({ field = 'paths', message = 'paths: a non-empty list of files to move is needed' })
  end
  for _, key in ipairs({ 'url_enabled', 'imports_unresolved_aliases' }) do
    if opts[key] ~= nil then
      error({ field = key, message = key .. ': a mover takes no ' .. key })
    end
  end
  local params = { urls = urls }
  if opts.presentation_id ~= nil then
    params.presentationId = expect(opts.presentation_id, 'string', 'presentation_id')
  end
  local options = dialog_options(opts, 'mover')
  if next(options) then
    params.options = options
  end
  return params
end

-- MARK: The dialog

--- Decodes every URL; a URL that is not a local file URL (Wharf sends none) gets `false`.
local function paths_of(urls)
  local paths = {}
  for i, u in ipairs(urls or {}) do
    local path = url.to_path(u)
    paths[i] = path or false
  end
  return paths
end

function Dialog:finish(result)
  if self.done then
    return
  end
  self.done = true
  self.result = result
  result.kind = self.kind
  result.dialog_id = self.id
  if self.id then
    client.unregister(self)
  end
  self:close_picker()
  local ok, err = xpcall(self.on_done, debug.traceback, result)
  if not ok then
    client.log('on_done failed: ' .. tostring(err))
    vim.notify('wharf: on_done failed: ' .. tostring(err), vim.log.levels.ERROR)
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'WharfDone', data = result, modeline = false })
end

function Dialog:fail(code, message, data)
  self:finish({ status = 'failed', error = { code = code, message = message, data = data } })
end

--- The process ended with the dialog open.
function Dialog:lost(message)
  self:fail(INTERNAL_ERROR, message)
end

--- A request that was to end the dialog (`cancel`, `dialog/dismiss`, `dialog/fail`) got no
--- answer in time: Wharf's ending may never come, so the dialog ends here, with the timeout as
--- its failure, and whatever Wharf says of it later is dropped.
function Dialog:give_up(err)
  if self.done then
    return
  end
  local id = self.id
  self:fail(err.code, err.message, err.data)
  if id then
    client.abandon(id, self.session)
  end
end

--- Ends the dialog for its caller if `err` is a timeout (for callbacks of requests that end it).
function Dialog:give_up_if_timeout(err)
  if client.is_timeout(err) then
    self:give_up(err)
  end
end

function Dialog:close_picker()
  local picker = self.picker
  self.picker = nil
  if picker then
    picker:close()
  end
end

function Dialog:handle(method, params, reply)
  if method == 'presenter/show' then
    if not self.done then
      self.show = params
      self:close_picker()
      self.picker = require('wharf.picker').open(self, params)
    end
  elseif method == 'presenter/hide' then
    self:close_picker()
  elseif method == 'dialog/presentationChanged' then
    if params.isPresented == false then
      self:close_picker()
    end
  elseif method == 'dialog/completed' then
    if params.error then
      self:finish({
        status = 'failed',
        error = { code = params.error.code, message = params.error.message, url = params.error.url },
      })
    else
      self:finish({
        status = 'completed',
        urls = params.urls or {},
        paths = paths_of(params.urls),
        content_types = params.contentTypes,
        filter = params.filter,
        choices = params.choices,
      })
    end
  elseif method == 'dialog/cancelled' then
    self:finish({ status = 'cancelled', reason = params.reason })
  elseif method == 'exporter/snapshot' then
    self:snapshot(params, reply)
  elseif method == 'dialog/progress' then
    self.progress = params
  elseif reply then
    reply({ code = -32601, message = 'the Neovim plugin does not handle ' .. method })
  end
end

--- Answers `exporter/snapshot` from the document's snapshot function.
function Dialog:snapshot(params, reply)
  local doc = self.documents and self.documents[(params.documentIndex or -1) + 1]
  if not doc or type(doc.snapshot) ~= 'function' then
    reply({ code = INVALID_PARAMS, message = 'no lazy document ' .. tostring(params.documentIndex) })
    return
  end
  local ok, value = xpcall(doc.snapshot, debug.traceback, params.contentType, {
    dialog_id = self.id,
    index = params.documentIndex + 1,
  })
  if not ok then
    client.log('snapshot failed: ' .. tostring(value))
    reply({ code = INTERNAL_ERROR, message = 'snapshot failed: ' .. tostring(value):match('^[^\n]*') })
    return
  end
  local contents, err = M.contents(value)
  if not contents then
    reply({ code = INTERNAL_ERROR, message = err })
    return
  end
  reply(nil, contents)
end

--- Sends a request about this dialog to the wharf that has it (`client.request`): a dialog id
--- means nothing to another, such as the one started while this one's is being stopped.
function Dialog:request(method, params, callback, opts)
  opts = vim.tbl_extend('force', opts or {}, { session = self.session })
  client.request(method, params, callback, opts)
end

--- Ends the dialog from the app's side (`cancel`): it ends with reason `client`.
function Dialog:cancel()
  if self.done then
    return
  end
  if not self.id then
    self.cancel_requested = true
    return
  end
  self:request('cancel', { dialogId = self.id }, function(err)
    self:give_up_if_timeout(err)
  end)
end

local builders = { importer = 'importer_params', exporter = 'exporter_params', mover = 'mover_params' }
local methods = { importer = 'presentImporter', exporter = 'presentExporter', mover = 'presentMover' }

--- Presents a dialog: `kind` is "importer", "exporter" or "mover", `opts` the Lua options.
--- Returns a handle with `cancel()`; `on_done` is called exactly once, always later (never
--- before this returns).
function M.present(kind, opts, on_done)
  if type(on_done) ~= 'function' then
    error('wharf: on_done must be a function', 3)
  end
  local dialog = setmetatable({ kind = kind, on_done = on_done, done = false }, Dialog)
  local handle = {
    cancel = function()
      dialog:cancel()
    end,
    dialog = dialog,
  }
  opts = opts or {}
  local ok, params = pcall(M[builders[kind]], opts)
  if not ok then
    local message = type(params) == 'table' and params.message or tostring(params)
    vim.schedule(function()
      dialog:fail(INVALID_PARAMS, message)
    end)
    return handle
  end
  if kind == 'exporter' then
    dialog.documents = opts.documents
  end
  local method = methods[kind]
  client.request(method, params, function(err, result, session)
    if err then
      dialog:finish({ status = 'failed', error = { code = err.code, message = err.message, data = err.data } })
      return
    end
    dialog.id = result.dialogId
    dialog.session = session
    client.register(dialog)
    if dialog.cancel_requested then
      dialog:cancel()
    end
  end, {
    -- Answered after its deadline, when on_done has had the timeout: Wharf presented the
    -- dialog before it read the cancellation. Nobody waits for it any more; end it.
    on_late = function(err, result, session)
      if not err and type(result) == 'table' and result.dialogId then
        client.abandon(result.dialogId, session)
        client.request('cancel', { dialogId = result.dialogId }, function() end, { quiet = true, session = session })
      end
    end,
  })
  return handle
end

return M
