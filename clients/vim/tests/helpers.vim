vim9script
# What the tests share: fixture folders, wharf's command line, waiting without blocking the
# channel (:sleep lets Vim read wharf's messages), and reading the picker's popups.

export const PNG = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D,
  0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00,
  0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89]

var made: list<string> = []

# A fresh folder (symbolic links resolved): docs/{a.txt, b.txt, c.png, .hidden.txt, sub/}.
export def Fixture(): string
  var root = resolve(tempname())
  mkdir(root .. '/docs/sub', 'p')
  mkdir(root .. '/state', 'p')
  writefile(['alpha'], root .. '/docs/a.txt')
  writefile(['beta'], root .. '/docs/b.txt')
  writefile(list2blob(PNG), root .. '/docs/c.png')
  writefile(['secret'], root .. '/docs/.hidden.txt')
  made->add(root)
  return root
enddef

export def Cleanup()
  for dir in made
    delete(dir, 'rf')
  endfor
  made = []
enddef

# Dialogs go to wharf $WHARF with `args`, drawn by `presenter` ('vim', 'native', 'auto').
export def Use(root: string, presenter: string, args: list<string> = [])
  g:wharf_cmd = [$WHARF, '--state-dir', root .. '/state'] + args
  g:wharf_presenter = presenter
enddef

# A callback that records what it is given: rec.calls.
export def Recorder(): dict<any>
  var rec: dict<any> = {calls: []}
  rec.Callback = (result) => add(rec.calls, result)
  return rec
enddef

export def WaitFor(Cond: func(): bool, what: string, ms: number = 10000): bool
  var start = reltime()
  while !Cond()
    if reltimefloat(reltime(start)) * 1000 > ms
      assert_report('timed out waiting for ' .. what)
      return false
    endif
    sleep 10m
  endwhile
  return true
enddef

# Waits for the recorder's one call and returns it; a second call within 200 ms is an error.
export def Result(rec: dict<any>): dict<any>
  if !WaitFor(() => !empty(rec.calls), 'the dialog to end')
    return {}
  endif
  sleep 200m
  assert_equal(1, len(rec.calls), 'the callback is called exactly once')
  return rec.calls[0]
enddef

# The picker once it shows a folder and is not waiting for Wharf.
export def Picker(): dict<any>
  WaitFor(() => !empty(wharf#picker#Current()) && wharf#picker#Current().dir != ''
    && !wharf#picker#Current().loading, 'the picker')
  return wharf#picker#Current()
enddef

export def Idle(p: dict<any>)
  WaitFor(() => p.closed || (!p.loading && !p.choosing), 'the picker to be idle')
enddef

# Types keys into Vim (the picker's filter gets them), then waits for the picker to settle.
export def Keys(p: dict<any>, keys: string)
  feedkeys(keys, 'xt')
  Idle(p)
enddef

export def Lines(p: dict<any>): list<string>
  return p.closed ? [] : getbufline(winbufnr(p.winid), 1, '$')
enddef

export def Status(p: dict<any>): string
  return p.closed ? '' : trim(join(getbufline(winbufnr(p.status), 1, '$'), ''))
enddef

# Whether a line of the picker shows the entry `name` (exactly: a folder's has a /).
def Shows(line: string, name: string): bool
  return line =~# '^[ +] \V' .. escape(name, '\') .. '\m/\= '
enddef

# The text properties (highlights) on the line showing `name`.
export def PropsOf(p: dict<any>, name: string): list<string>
  var lines = Lines(p)
  for i in range(len(lines))
    if Shows(lines[i], name)
      return prop_list(i + 1, {bufnr: winbufnr(p.winid)})->mapnew((_, pr) => pr.type)
    endif
  endfor
  return ['no line for ' .. name]
enddef

# Moves the cursor to the line showing `name`.
export def CursorTo(p: dict<any>, name: string)
  var lines = Lines(p)
  for i in range(len(lines))
    if Shows(lines[i], name)
      Keys(p, 'g' .. repeat('j', i))
      return
    endif
  endfor
  assert_report('no line for ' .. name .. ' in ' .. string(lines))
enddef

export def Read(path: string): string
  return readblob(path)->blob2list()->mapnew((_, b) => printf('%c', b))->join('')
enddef

# The keys line the picker shows when nothing else is on its status line.
export def KeysLineOf(p: dict<any>): string
  var saved = [p.notice, p.mode]
  p.notice = ''
  p.mode = 'browse'
  win_execute(p.winid, 'normal! gg')
  var lines = Lines(p)
  var text = ''
  for i in range(len(lines))
    # A line whose entry can be chosen shows the keys.
    if lines[i] =~ '^  a\.txt'
      win_execute(p.winid, 'normal! ' .. (i + 1) .. 'G')
    endif
  endfor
  wharf#picker#Refresh(p)
  text = Status(p)
  [p.notice, p.mode] = saved
  wharf#picker#Refresh(p)
  return text
enddef
