vim9script
# Wharf's "Open…" and "Save As…" dialogs for Vim. Commands only: everything else is in
# autoload/, loaded on first use, and no wharf starts until a dialog needs it.

if exists('g:loaded_wharf') || v:version < 900
  finish
endif
g:loaded_wharf = 1

command! -nargs=* -complete=filetype WharfOpen wharf#open([<f-args>])
command! -bar WharfSaveAs wharf#save_as()
command! -bar WharfAccess wharf#access()
command! -bar WharfStop wharf#stop()
command! -bar WharfStatus wharf#status_report()
