vim9script
# :WharfAccess: this session's grants and this app's bookmarks in a popup; <CR> edits the one
# under the cursor, x revokes it, r refreshes, q closes.

import autoload 'wharf/rpc.vim'
import autoload 'wharf/url.vim'

var state: dict<any> = {}

export def Open()
  if !empty(state) && !empty(popup_getpos(state.winid))
    popup_close(state.winid)
  endif
  var width = min([&columns - 6, max([60, &columns * 7 / 10])])
  var height = max([6, &lines / 2])
  state = {entries: []}
  state.winid = popup_create(['  loading…'], {
    minwidth: width, maxwidth: width, minheight: height, maxheight: height,
    border: [], borderchars: ['─', '│', '─', '│', '╭', '╮', '╯', '╰'], padding: [0, 1, 0, 1],
    title: ' Wharf access · ' .. get(g:, 'wharf_app', 'vim') .. ' · <CR> edit · x revoke · r refresh · q close ',
    cursorline: 1, wrap: 0, mapping: 0, zindex: 200, highlight: 'Normal',
    filter: (id, key) => Key(key),
  })
  Refresh()
enddef

def Draw(lines: list<string>)
  if !empty(popup_getpos(state.winid))
    popup_settext(state.winid, lines)
  endif
enddef

def Refresh()
  var current = state
  rpc.Request('listAccess', {}, (err, result) => {
    if current isnot state
      return
    endif
    if err != null
      state.entries = []
      Draw(['  ' .. get(err, 'message', 'listAccess failed')])
      return
    endif
    state.entries = get(result, 'entries', [])
    if empty(state.entries)
      Draw(['  (no grants or bookmarks)'])
      return
    endif
    Draw(state.entries->mapnew((_, e) => printf('%-8s %s %s%s', e.kind, e.readOnly ? 'r ' : 'rw',
      strtrans(url.ToPath(e.url)), e.activeLeases > 0 ? '  (' .. e.activeLeases .. ' leases)' : '')))
  })
enddef

def Key(key: string): bool
  var lnum = line('.', state.winid)
  var entry = get(state.entries, lnum - 1, {})
  if key == 'q' || key == "\<Esc>" || key == "\<C-C>"
    popup_close(state.winid)
  elseif key == 'j' || key == "\<Down>"
    win_execute(state.winid, 'normal! j')
  elseif key == 'k' || key == "\<Up>"
    win_execute(state.winid, 'normal! k')
  elseif key == 'r'
    Refresh()
  elseif key == "\<CR>" && !empty(entry)
    popup_close(state.winid)
    wharf#commands#EditPaths([url.ToPath(entry.url)])
  elseif key == 'x' && !empty(entry)
    var what = entry.kind == 'bookmark' && has_key(entry, 'bookmark') ? {bookmark: entry.bookmark} : {url: entry.url}
    rpc.Request('revokeAccess', what, (err, result) => {
      echomsg err != null ? 'wharf: ' .. err.message : printf('wharf: revoked %d', result.revoked)
      Refresh()
    })
  endif
  return true
enddef

# The popup's window id (0 when none was opened), for tests.
export def Winid(): number
  return get(state, 'winid', 0)
enddef
