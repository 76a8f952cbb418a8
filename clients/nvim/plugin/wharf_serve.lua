-- :WharfServeDesktop and :WharfServeDesktopStop: this Neovim draws every app's dialogs.
-- Nothing is loaded until one is used.
if vim.g.loaded_wharf_serve then
  return
end
vim.g.loaded_wharf_serve = true

local function too_old()
  if vim.fn.has('nvim-0.10') == 0 then
    vim.notify('wharf: Neovim 0.10 or newer is needed', vim.log.levels.ERROR)
    return true
  end
  return false
end

vim.api.nvim_create_user_command('WharfServeDesktop', function()
  if not too_old() then
    require('wharf.serve').start()
  end
end, { nargs = 0, desc = "Draw every app's Wharf dialogs in this Neovim (the daemon's presenter) until it exits" })

vim.api.nvim_create_user_command('WharfServeDesktopStop', function()
  if not too_old() then
    if not require('wharf.serve').stop() then
      vim.notify('wharf: this Neovim does not serve the desktop', vim.log.levels.INFO)
    end
  end
end, { nargs = 0, desc = "Stop drawing other apps' Wharf dialogs; the daemon's next presenter draws them" })
