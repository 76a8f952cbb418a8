--- `:checkhealth wharf`: Neovim, the binary and its version, the request deadline, the session
--- Wharf gives this Neovim (which presenter draws its dialogs, which are usable), the state
--- directory, the log.
local M = {}

local health = vim.health

local names = {
  frontend = 'Neovim (drawn by this plugin)',
  portal = 'the desktop portal (xdg-desktop-portal)',
  zenity = 'zenity',
  kdialog = 'kdialog',
  script = 'a script of answers (--presenter script:FILE)',
}

--- The deadlines requests get, as the client computes them (`client.deadline`): the setting,
--- and the longer one of writes to the state store, which wait for a store another process holds.
local function deadlines(client)
  local usual = client.deadline('presentImporter')
  if not usual then
    return 'request deadline: none (request_timeout_ms = false)'
  end
  local text = string.format('request deadline: %d ms', usual)
  local store = client.deadline('revokeAccess')
  if store ~= usual then
    text = text .. string.format(' (writes to the state store: %d ms)', store)
  end
  return text
end

function M.check()
  local config = require('wharf.config')
  local client = require('wharf.client')
  local opts = config.options

  health.start('wharf: Neovim')
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.10 or newer is needed; this is ' .. tostring(vim.version()))
  end

  require('wharf.serve').check_health()

  health.start('wharf: the server')
  local cmd = config.command()
  health.info('command: ' .. table.concat(cmd, ' '))
  health.info('presenter setting: ' .. opts.presenter .. ', app identity: ' .. opts.app)
  health.info(deadlines(client))
  local binary = vim.fn.exepath(cmd[1])
  if binary == '' then
    health.error(cmd[1] .. ' is not an executable file (nor on $PATH)', {
      'build it (`swift build` in the Wharf repository) or install it',
      'then point the plugin at it: require("wharf").setup({ cmd = { "/path/to/wharf" } })',
    })
    return
  end
  health.ok('binary: ' .. binary)
  local ok, result = pcall(function()
    return vim.system({ binary, '--version' }, { text = true }):wait(5000)
  end)
  if ok and result.code == 0 then
    health.ok('version: ' .. vim.trim(result.stdout))
  else
    health.error('`' .. binary .. ' --version` failed: ' .. vim.trim(ok and (result.stderr or '') or tostring(result)))
  end

  local err = client.request_sync('ping', vim.empty_dict(), 5000)
  local status = client.status()
  if err then
    health.error('the session did not start: ' .. (err.message or vim.inspect(err)), {
      'see the log: ' .. config.log_file(),
    })
  else
    health.ok(string.format('session running (pid %s), protocol %s', tostring(status.pid),
      tostring(status.protocol_version)))
    local presenters = status.presenters or {}
    health.info('usable presenters: ' .. (#presenters > 0 and table.concat(presenters, ', ') or 'none'))
    local presenter = status.presenter
    if presenter then
      health.ok('dialogs are drawn by: ' .. (names[presenter] or presenter) .. ' [' .. presenter .. ']')
      if opts.presenter == 'native' and presenter == 'frontend' then
        health.warn('presenter = "native", yet Wharf hands the dialogs to Neovim')
      elseif opts.presenter == 'auto' and presenter == 'frontend' then
        if status.capabilities and status.capabilities.presenter == nil then
          health.info('this wharf does not say which presenter it chose (no capabilities.presenter): '
            .. 'it draws no desktop dialogs, so Neovim draws them')
        else
          health.info('no desktop dialog is usable here (ssh, a bare terminal?): Neovim draws them')
        end
      end
    else
      health.error('no presenter: dialogs will fail (noPresenter)', {
        'presenter = "native" needs a desktop dialog Wharf can use (a portal, zenity or kdialog)',
        'or use presenter = "auto" or "nvim" to draw the dialogs in Neovim',
      })
    end
  end

  health.start('wharf: state and log')
  local state = config.state_dir()
  if state == ':memory:' then
    health.info('state directory: none (--state-dir :memory:): grants and bookmarks last for this session only')
  elseif vim.fn.isdirectory(state) == 1 then
    if vim.fn.filewritable(state) == 2 then
      health.ok('state directory: ' .. state)
    else
      health.error('state directory is not writable: ' .. state)
    end
  else
    health.info('state directory: ' .. state .. ' (not created yet; Wharf creates it when it first stores something)')
  end
  health.info('log: ' .. config.log_file())
  local desktop = {}
  for _, var in ipairs({ 'WAYLAND_DISPLAY', 'DISPLAY', 'DBUS_SESSION_BUS_ADDRESS' }) do
    if vim.env[var] and vim.env[var] ~= '' then
      table.insert(desktop, var .. '=' .. vim.env[var])
    end
  end
  health.info('desktop session: ' .. (#desktop > 0 and table.concat(desktop, ', ') or 'none seen (no DISPLAY, WAYLAND_DISPLAY)'))
end

return M
