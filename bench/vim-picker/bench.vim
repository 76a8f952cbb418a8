vim9script
# Run by run.sh inside an interactive Vim in tmux (a real terminal, so that :redraw writes the
# screen). Times, with reltime() inside Vim, from the command or keystroke to the screen
# redrawn, and writes one line "name ms" per measurement to $BENCH_OUT.

const REPS = str2nr($BENCH_REPS ?? '7')
var out: list<string> = []

def Record(name: string, start: list<any>)
  out->add(name .. ' ' .. printf('%.3f', reltimefloat(reltime(start)) * 1000))
enddef

def WaitFor(Cond: func(): bool)
  var start = reltime()
  while !Cond() && reltimefloat(reltime(start)) < 20
    sleep 1m
  endwhile
  if !Cond()
    throw 'timed out'
  endif
enddef

var shown_at: list<any> = []
augroup wharf_bench
  autocmd!
  autocmd User WharfPickerShown redraw | shown_at = reltime()
augroup END

# :WharfOpen in `dir` to the picker drawn; `cold` stops wharf first so the command starts it.
def OpenToDrawn(name: string, dir: string, cold: bool)
  execute 'cd ' .. fnameescape(dir)
  for _ in range(REPS)
    if cold
      wharf#stop()
    endif
    shown_at = []
    var start = reltime()
    WharfOpen
    WaitFor(() => !empty(shown_at))
    out->add(name .. ' ' .. printf('%.3f', reltimefloat(shown_at) * 1000 - reltimefloat(start) * 1000))
    var p = wharf#picker#Current()
    feedkeys('q', 'xt')
    WaitFor(() => p.closed == true)
    sleep 20m
  endfor
enddef

# One keystroke given to the picker, then the screen redrawn.
def Key(name: string, keys: string)
  var start = reltime()
  feedkeys(keys, 'xt')
  redraw
  Record(name, start)
enddef

def Keystrokes(dir: string)
  execute 'cd ' .. fnameescape(dir)
  WharfOpen
  WaitFor(() => !empty(wharf#picker#Current()) && wharf#picker#Current().dir != "")
  var p = wharf#picker#Current()
  # Every page, so that each keystroke works on the whole folder.
  while p.next_cursor != null || p.loading
    feedkeys('G', 'xt')
    sleep 5m
  endwhile
  out->add('entries ' .. len(wharf#picker#Entries(p)))
  feedkeys('g', 'xt')
  for _ in range(REPS)
    Key('picker-j', 'j')
    Key('picker-k', 'k')
    Key('picker-filter-char', '/5')
    Key('picker-filter-backspace', "\<BS>")
    Key('picker-filter-close', "\<BS>")
    Key('picker-tab-mark', "\<Tab>")
    Key('picker-tab-unmark', "k\<Tab>")
  endfor
  feedkeys('q', 'xt')
  WaitFor(() => p.closed == true)
enddef

# The peer: Vim's own :e with 'wildmenu' over the same folder: <Tab> lists it and draws the
# wildmenu; a second <Tab> moves to the next match.
def Wildmenu(name: string, dir: string)
  set wildmenu wildmode=full
  for _ in range(REPS)
    var start = reltime()
    feedkeys(':e ' .. fnameescape(dir) .. "/\<Tab>\<C-\>\<C-N>", 'xt')
    Record(name .. '-list', start)
    start = reltime()
    feedkeys(':e ' .. fnameescape(dir) .. "/\<Tab>\<Tab>\<C-\>\<C-N>", 'xt')
    Record(name .. '-list-and-next', start)
  endfor
enddef

try
  Wildmenu('wildmenu-small', $BENCH_SMALL)
  Wildmenu('wildmenu-10k', $BENCH_BIG)
  OpenToDrawn('open-cold-small', $BENCH_SMALL, true)
  OpenToDrawn('open-warm-small', $BENCH_SMALL, false)
  OpenToDrawn('open-cold-10k', $BENCH_BIG, true)
  OpenToDrawn('open-warm-10k', $BENCH_BIG, false)
  Keystrokes($BENCH_BIG)
catch
  out->add('error ' .. v:exception .. ' ' .. v:throwpoint)
endtry
writefile(out, $BENCH_OUT)
qall!
