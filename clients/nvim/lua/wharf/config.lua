--- The plugin's settings: defaults, and what `setup()` changed.
local M = {}

M.defaults = {
  --- The command that starts Wharf. `wharf` on $PATH by default.
  cmd = { 'wharf' },
  --- Who draws dialogs: "auto" (the desktop's when the session has one, else Neovim),
  --- "nvim" (always Neovim), "native" (always the desktop's, through Wharf).
  presenter = 'auto',
  --- The app identity Wharf files grants and bookmarks under (initialize.clientInfo.name).
  app = 'nvim',
  --- Where Wharf's standard error (its log) and the plugin's own notes go.
  log_file = nil, -- default: stdpath('log') .. '/wharf.log'
  --- Log every message to and from Wharf in the log file (for troubleshooting).
  trace = false,
  --- Entries asked of `dialog/list` at a time; more are fetched as the cursor nears the end.
  page_size = 200,
  --- How long Wharf gets to end when Neovim exits or `:WharfStop` ends it (shutdown, then exit),
  --- in milliseconds; one still there then is killed (SIGTERM, then SIGKILL).
  shutdown_timeout_ms = 2000,
  --- How long a request may go unanswered, in milliseconds, before the plugin gives up on it
  --- (cancels it, and its caller gets an error); `false`: wait for ever. Wharf answers every
  --- request the plugin sends within milliseconds (a dialog's `present…` with its id, not when
  --- the human is done): 10 s is a wide margin for a loaded machine, and still tells the user,
  --- while they are still looking for their dialog, that a stopped or wedged wharf is not coming.
  request_timeout_ms = 10000,
  --- The floating window: a fraction of the editor's size (or a number of cells), and border.
  window = {
    width = 0.6,
    height = 0.6,
    border = 'rounded',
  },
}

M.options = vim.deepcopy(M.defaults)

local presenters = { auto = true, nvim = true, native = true }

--- A deadline is a whole, finite, positive number of milliseconds, or false (none).
local function valid_deadline(value)
  if type(value) == 'number' then
    return value >= 1 and value == math.floor(value) and value ~= math.huge
  end
  return value == nil or value == false
end

--- A page is a whole number of entries that Wharf's `dialog/list` takes as its `limit` (a JSON-RPC
--- integer, at least 1): any other page size made every picker fail as it opened.
local MAX_PAGE_SIZE = 2147483647
local function valid_page_size(value)
  if type(value) == 'number' then
    return value >= 1 and value <= MAX_PAGE_SIZE and value == math.floor(value)
  end
  return value == nil
end

--- Merges `opts` into the settings, checking what it can.
---@param opts table|nil
function M.set(opts)
  opts = opts or {}
  local expected = {
    cmd = { table = true, string = true },
    presenter = { string = true },
    app = { string = true },
    log_file = { string = true },
    trace = { boolean = true },
    page_size = { number = true },
    shutdown_timeout_ms = { number = true },
    request_timeout_ms = { number = true, boolean = true },
    window = { table = true },
  }
  for key, value in pairs(opts) do
    if not expected[key] then
      error('wharf: unknown setup option ' .. vim.inspect(key), 2)
    end
    if value ~= nil and not expected[key][type(value)] then
      error(string.format('wharf: setup option %s: expected %s, got %s %s', key,
        table.concat(vim.tbl_keys(expected[key]), ' or '), type(value), vim.inspect(value)), 2)
    end
  end
  if opts.presenter and not presenters[opts.presenter] then
    error('wharf: presenter must be "auto", "nvim" or "native", not ' .. vim.inspect(opts.presenter), 2)
  end
  if not valid_deadline(opts.request_timeout_ms) then
    error('wharf: request_timeout_ms must be a whole number of milliseconds (at least 1) or false, not '
      .. vim.inspect(opts.request_timeout_ms), 2)
  end
  if not valid_page_size(opts.page_size) then
    error(string.format('wharf: page_size must be a whole number of entries from 1 to %d, not %s', MAX_PAGE_SIZE,
      vim.inspect(opts.page_size)), 2)
  end
  if type(opts.cmd) == 'string' then
    opts = vim.tbl_extend('force', opts, { cmd = { opts.cmd } })
  end
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- A list replaces, it does not merge element by element.
  if opts.cmd then
    M.options.cmd = vim.deepcopy(opts.cmd)
  end
  return M.options
end

function M.log_file()
  return M.options.log_file or (vim.fn.stdpath('log') .. '/wharf.log')
end

--- The command line actually run: `cmd`, plus `--presenter auto` when the desktop is to draw
--- every dialog and the command does not choose a presenter itself.
function M.command()
  local cmd = vim.deepcopy(M.options.cmd)
  if M.options.presenter == 'native' then
    local chooses = false
    for _, arg in ipairs(cmd) do
      if arg == '--presenter' or arg:match('^%-%-presenter=') then
        chooses = true
      end
    end
    if not chooses then
      table.insert(cmd, '--presenter')
      table.insert(cmd, 'auto')
    end
  end
  return cmd
end

--- The state directory the command uses (`--state-dir`), or Wharf's default.
function M.state_dir()
  local cmd = M.options.cmd
  for i, arg in ipairs(cmd) do
    if arg == '--state-dir' and cmd[i + 1] then
      return cmd[i + 1]
    end
    local value = arg:match('^%-%-state%-dir=(.*)$')
    if value then
      return value
    end
  end
  local base = vim.env.XDG_STATE_HOME
  if not base or base == '' then
    base = (vim.env.HOME or '~') .. '/.local/state'
  end
  return base .. '/wharf'
end

return M
