" Wharf's "Open…" and "Save As…" dialogs for Vim. Commands only: everything else is in
" autoload/, loaded on first use, and no wharf starts until a dialog needs it. Plain Vim script
" here, so that a Vim older than 9.0 (or one without channels and popups) skips the plugin
" quietly instead of failing on `vim9script`.

if exists('g:loaded_wharf') || v:version < 900 || !has('channel') || !has('popupwin')
  finish
endif
let g:loaded_wharf = 1

command! -nargs=* WharfOpen call wharf#open([<f-args>])
command! -bar WharfSaveAs call wharf#save_as()
command! -bar WharfAccess call wharf#access()
command! -bar WharfStop call wharf#stop()
command! -bar WharfStatus call wharf#status_report()
