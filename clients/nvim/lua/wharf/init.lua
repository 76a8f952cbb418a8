--- Wharf for Neovim: "Open…" and "Save As…" dialogs through the Wharf server, drawn by the
--- desktop or inside Neovim.
---
--- See `:help wharf`.
local M = {}

--- Configures the plugin. Safe to call again; a running Wharf whose command, presenter or app
--- identity changed is stopped, and the next dialog starts the new one.
---@param opts? {cmd?: string[]|string, presenter?: "auto"|"nvim"|"native", app?: string, log_file?: string, page_size?: integer, shutdown_timeout_ms?: integer, request_timeout_ms?: integer|false, window?: table}
function M.setup(opts)
  local config = require('wharf.config')
  local before = vim.deepcopy(config.options)
  config.set(opts)
  local after = config.options
  if not vim.deep_equal(before.cmd, after.cmd) or before.presenter ~= after.presenter or before.app ~= after.app then
    require('wharf.client').stop()
  end
end

--- Asks the human for files to open (Wharf's `presentImporter`).
---
--- `on_done(result)` is called exactly once, later, with one of
--- `{status = "completed", urls = {...}, paths = {...}}`,
--- `{status = "cancelled", reason = "user"|"client"|"timeout"|"disconnected"}`,
--- `{status = "failed", error = {code = n, message = "..."}}`.
---@param opts? table see `:help wharf.import()`
---@param on_done fun(result: table)
---@return table handle with `cancel()`
function M.import(opts, on_done)
  return require('wharf.dialog').present('importer', opts, on_done)
end

--- Asks the human where to save documents (Wharf's `presentExporter`).
---@param opts table see `:help wharf.export()`; `documents` is required
---@param on_done fun(result: table)
---@return table handle with `cancel()`
function M.export(opts, on_done)
  return require('wharf.dialog').present('exporter', opts, on_done)
end

--- Asks the human for a folder and moves files there (Wharf's `presentMover`): `opts.paths`
--- (or `opts.urls`) are files this session was given through Wharf (opened with an importer,
--- saved with an exporter). `on_done` is called once, as for `import`; a completed move's
--- `paths` are the new places, in the order given.
---@param opts table see `:help wharf.move()`; `paths` is required
---@param on_done fun(result: table)
---@return table handle with `cancel()`
function M.move(opts, on_done)
  return require('wharf.dialog').present('mover', opts, on_done)
end

--- This session's grants and this app's bookmarks (`listAccess`):
--- `callback(err, entries)`, each entry as Wharf gives it but `path`, which is the `url`
--- decoded byte for byte: Wharf's own `path` is for reading (a byte that is not UTF-8 reads
--- U+FFFD), and a file opened by it would be another, most likely missing, file.
function M.list_access(callback)
  local url = require('wharf.url')
  require('wharf.client').request('listAccess', vim.empty_dict(), function(err, result)
    if err then
      callback(err, nil)
      return
    end
    local entries = result.entries or {}
    for _, entry in ipairs(entries) do
      entry.path = url.to_path(entry.url) or entry.path
    end
    callback(nil, entries)
  end)
end

--- Takes access away (`revokeAccess`): `what` is `{url = ...}` or `{bookmark = ...}`;
--- `callback(err, revoked_count)`.
function M.revoke_access(what, callback)
  require('wharf.client').request('revokeAccess', what, function(err, result)
    callback = callback or function() end
    if err then
      callback(err, nil)
      return
    end
    callback(nil, result.revoked)
  end)
end

--- What runs: `{running, pid, presenter, presenters, server_info, log_file, ...}`.
function M.status()
  return require('wharf.client').status()
end

--- Stops Wharf (`shutdown`, then `exit`; killed if it does not end within
--- `shutdown_timeout_ms`) without waiting for it: the next dialog starts a new one at once.
--- Returns the pid being stopped, or nil when nothing was running; `on_stopped(pid, how)` is
--- called once it has ended, `how` saying how ("exited", "terminated", "killed").
---@param on_stopped? fun(pid: integer, how: "exited"|"terminated"|"killed"|nil)
---@return integer|nil pid
function M.stop(on_stopped)
  return require('wharf.client').stop(nil, on_stopped)
end

return M
