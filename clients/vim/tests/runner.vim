vim9script
# Runs the g:Test_* functions of $WHARF_TEST_FILE one by one, writing "ok NAME" or
# "not ok NAME" and the failures to $WHARF_TEST_OUT, then "done". After each test: every
# dialog has ended, no popup is left, and the wharf it used exits with status 0 when stopped.

var out: list<string> = []
def Write()
  writefile(out, $WHARF_TEST_OUT)
enddef

try
  execute 'source ' .. fnameescape($WHARF_TEST_FILE)
catch
  out->add('not ok ' .. fnamemodify($WHARF_TEST_FILE, ':t') .. ': ' .. v:exception .. ' ' .. v:throwpoint)
endtry
var filter = $WHARF_TEST_FILTER
for name in getcompletion('Test_', 'function')->map((_, n) => substitute(n, '()\=$', '', ''))
  if filter != '' && stridx(name, filter) < 0
    continue
  endif
  v:errors = []
  try
    call('g:' .. name, [])
  catch
    add(v:errors, 'exception: ' .. v:exception .. ' at ' .. v:throwpoint)
  endtry
  if !empty(wharf#dialog#Open())
    add(v:errors, 'dialogs left open: ' .. string(wharf#dialog#Open()->mapnew((_, d) => d.kind .. ' ' .. d.id)))
  endif
  if !empty(popup_list())
    add(v:errors, 'popups left open: ' .. string(popup_list()))
    popup_clear(1)
  endif
  var status = wharf#rpc#Status()
  if status.state == 'ready'
    wharf#rpc#Stop()
    if wharf#rpc#Status().exit_status != 0
      add(v:errors, 'wharf exited with status ' .. wharf#rpc#Status().exit_status .. ' when stopped')
    endif
  endif
  if exists('*g:Cleanup')
    g:Cleanup()
  endif
  if empty(v:errors)
    out->add('ok ' .. name)
  else
    out->add('not ok ' .. name)
    out += v:errors->mapnew((_, e) => '  ' .. substitute(e, '\n', ' ', 'g'))
  endif
  Write()
endfor
out->add('done')
Write()
qall!
