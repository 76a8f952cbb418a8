-- Wharf's commands. Nothing is loaded until one is used.
if vim.g.loaded_wharf then
  return
end
vim.g.loaded_wharf = true

local common_types = {
  'public.data', 'public.item', 'public.folder', 'public.text', 'public.plain-text',
  'public.utf8-plain-text', 'public.source-code', 'public.script', 'public.json', 'public.xml',
  'public.html', 'net.daringfireball.markdown', 'public.image', 'public.png', 'public.jpeg',
  'com.adobe.pdf', 'public.archive', 'public.movie', 'public.audio',
}

local function too_old()
  if vim.fn.has('nvim-0.10') == 0 then
    vim.notify('wharf: Neovim 0.10 or newer is needed', vim.log.levels.ERROR)
    return true
  end
  return false
end

vim.api.nvim_create_user_command('WharfOpen', function(args)
  if not too_old() then
    require('wharf.commands').open(args.fargs)
  end
end, {
  nargs = '*',
  desc = 'Open files chosen in a Wharf dialog (content types or extensions as arguments)',
  complete = function(lead)
    return vim.tbl_filter(function(t)
      return vim.startswith(t, lead)
    end, common_types)
  end,
})

vim.api.nvim_create_user_command('WharfSaveAs', function()
  if not too_old() then
    require('wharf.commands').save_as(0)
  end
end, { nargs = 0, desc = 'Save the buffer where a Wharf dialog says, and edit it there' })

vim.api.nvim_create_user_command('WharfMove', function()
  if not too_old() then
    require('wharf.commands').move(0)
  end
end, { nargs = 0, desc = 'Move the buffer\'s file into a folder chosen in a Wharf dialog; the buffer follows it' })

vim.api.nvim_create_user_command('WharfAccess', function()
  if not too_old() then
    require('wharf.commands').access()
  end
end, { nargs = 0, desc = "List Wharf's grants and bookmarks for Neovim; revoke them" })

vim.api.nvim_create_user_command('WharfStop', function()
  if not too_old() then
    require('wharf.commands').stop()
  end
end, { nargs = 0, desc = 'Stop Wharf (say, one that stopped answering); the next dialog starts it again' })
