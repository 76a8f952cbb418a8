vim9script
# What :WharfOpen and :WharfSaveAs do, through the same API other plugins call.

import autoload 'wharf/rpc.vim'
import autoload 'wharf/dialog.vim'

def Notify(text: string, level: string = 'info')
  if level == 'error'
    echohl ErrorMsg
  elseif level == 'warning'
    echohl WarningMsg
  endif
  echomsg 'wharf: ' .. text
  echohl None
enddef

def Report(result: dict<any>)
  if result.status == 'failed'
    Notify(printf('%s (%s)', get(result.error, 'message', 'failed'), get(result.error, 'code', '?')), 'error')
  elseif result.status == 'cancelled' && result.reason != 'user'
    Notify('dialog cancelled: ' .. result.reason, 'warning')
  endif
enddef

# Content types for :WharfOpen's words: an identifier (a dot inside: public.image) as it is, an
# extension (md, .md) through Wharf. Callback(err, types).
def ResolveTypes(words: list<string>, Callback: func)
  var state = {types: copy(words), pending: 0, failed: ''}
  for i in range(len(words))
    var word = words[i]
    var ext = word =~ '^\.' ? strpart(word, 1) : (stridx(word, '.') < 0 ? word : '')
    if ext != ''
      state.pending += 1
      rpc.Request('contentTypes/fromFilenameExtension', {filenameExtension: ext}, Resolved(state, i, ext, Callback))
    endif
  endfor
  if state.pending == 0
    Callback(v:null, state.types)
  endif
enddef

# The callback for word `i`: its own function, so that it keeps its own `i` (closures made in
# a loop share the loop's variables in Vim 9.0).
def Resolved(state: dict<any>, i: number, ext: string, Callback: func): func
  return (err, result) => {
    state.pending -= 1
    if err != null || type(result) != v:t_dict || type(get(result, 'identifier', v:null)) != v:t_string
      if state.failed == ''
        state.failed = 'no content type for .' .. ext .. (err != null ? ': ' .. err.message : '')
      endif
    else
      state.types[i] = result.identifier
    endif
    if state.pending == 0
      Callback(state.failed == '' ? v:null : state.failed, state.types)
    endif
  }
enddef

# Opens the paths: the first in the current window, the others as listed buffers.
export def EditPaths(paths: list<string>)
  var opened = copy(paths)->filter((_, p) => p != '')
  for path in reverse(copy(opened))
    execute 'badd ' .. fnameescape(path)
  endfor
  if !empty(opened)
    try
      execute 'edit ' .. fnameescape(opened[0])
    catch
      Notify(v:exception, 'error')
    endtry
  endif
  if len(opened) > 1
    Notify(printf('opened %d files', len(opened)))
  endif
enddef

export def Open(words: list<string>)
  ResolveTypes(words, (err, types) => {
    if err != null
      Notify(err, 'error')
      return
    endif
    dialog.Import(types, {multiple: true, default_directory: getcwd(), customization_id: 'vim.open'},
      (result) => {
        if result.status == 'completed'
          EditPaths(result.paths)
        else
          Report(result)
        endif
      })
  })
enddef

# The buffer's bytes, exactly as :write writes them ('fileformat', 'fileencoding', 'bomb',
# 'endofline'), in a new temporary file.
def BufferFile(buf: number): string
  var winid = bufwinid(buf)
  if winid < 0
    throw 'the buffer is not in a window any more'
  endif
  var file = tempname()
  var cpo = &cpoptions
  try
    # Without A and F, :write to another name leaves the buffer's name and the alternate file.
    set cpoptions-=A cpoptions-=F
    win_execute(winid, 'silent keepalt write! ' .. fnameescape(file))
  finally
    &cpoptions = cpo
  endtry
  return file
enddef

def BufferType(name: string, Callback: func)
  var base = fnamemodify(name, ':t')
  var ext = matchstr(base, '.\.\zs[^.]\+$')
  if base == ''
    Callback('public.plain-text')
  elseif ext == ''
    Callback('public.data')
  else
    rpc.Request('contentTypes/fromFilenameExtension', {filenameExtension: ext}, (err, result) =>
      Callback(err == null && type(result) == v:t_dict && type(get(result, 'identifier', v:null)) == v:t_string ? result.identifier : 'public.data'))
  endif
enddef

# Points the buffer at the file it was saved as, like :saveas: the old name becomes the
# alternate file; an unchanged buffer is read back (the same bytes) so that Vim knows it as
# edited there (a later :write needs no !), undo kept.
def Adopt(buf: number, path: string, tick: number)
  if !bufexists(buf)
    return
  endif
  var other = bufnr('^' .. escape(path, '^$.*[]~\/') .. '$')
  if other > 0 && other != buf && fnamemodify(bufname(other), ':p') == path
    Notify(printf('saved %s; it is also open in buffer %d, so this buffer keeps its name', strtrans(fnamemodify(path, ':~')), other), 'warning')
    return
  endif
  if bufnr() != buf
    Notify('saved ' .. strtrans(fnamemodify(path, ':~')))
    return
  endif
  var unchanged = getbufvar(buf, 'changedtick') == tick
  execute 'file ' .. fnameescape(path)
  if unchanged
    var view = winsaveview()
    var undoreload = &undoreload
    &undoreload = max([undoreload, line('$') + 1])
    try
      silent keepalt keepjumps edit!
    finally
      &undoreload = undoreload
    endtry
    winrestview(view)
  endif
  Notify('saved ' .. strtrans(fnamemodify(path, ':~')))
enddef

export def SaveAs()
  var buf = bufnr()
  var name = bufname(buf) == '' ? '' : fnamemodify(bufname(buf), ':p')
  BufferType(name, (content_type) => SaveAsType(buf, name, content_type))
enddef

def SaveAsType(buf: number, name: string, content_type: string)
  var state = {tick: -1, file: ''}
  var dir = name != '' ? fnamemodify(name, ':h') : getcwd()
  if !isdirectory(dir)
    dir = getcwd()
  endif
  var Snapshot = (_) => {
    if !bufexists(buf)
      throw 'the buffer is gone'
    endif
    state.tick = getbufvar(buf, 'changedtick')
    state.file = BufferFile(buf)
    return {path: state.file}
  }
  var Done = (result) => {
    if state.file != ''
      delete(state.file)
    endif
    if result.status != 'completed'
      Report(result)
      return
    endif
    Adopt(buf, result.paths[0], state.tick)
  }
  var document = {filename: name != '' ? fnamemodify(name, ':t') : 'Untitled', types: [content_type], snapshot: Snapshot}
  dialog.Export([document], {default_directory: dir}, Done)
enddef

export def StatusReport()
  var status = rpc.Status()
  var lines = ['wharf: ' .. status.state .. (has_key(status, 'pid') ? ' (pid ' .. status.pid .. ')' : ''),
    'command: ' .. join(status.command),
    'presenter option: ' .. get(g:, 'wharf_presenter', 'auto')]
  if has_key(status, 'presenter')
    lines->add('dialogs are shown by: ' .. (status.presenter == null ? 'nobody' : status.presenter))
    for [name, why] in items(status.unavailable)
      lines->add('  ' .. name .. ': ' .. why)
    endfor
  endif
  echo join(lines, "\n")
enddef

