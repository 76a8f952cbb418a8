vim9script
# The dialog drawn inside Vim (the frontend presenter): a popup window over the folder
# `dialog/list` returns, answered with `dialog/choose`, `dialog/dismiss` or `dialog/fail`. Its
# keys and look are the Neovim plugin's: folders first, entries that cannot be chosen dimmed
# (their reason on the status line under the list), `/` filters, <Tab> marks, `-` up, `~` home,
# `.` hidden files, <CR> opens or chooses, `q`/<Esc> cancels, `?` lists the keys.
#
# Every entry point (keys, answers from Wharf) runs guarded: an error anywhere in here closes
# the popup and gives the dialog up with `dialog/fail`, so no dialog is left open behind a
# broken popup. Nothing here waits: names are typed into the status line, not `input()`.

import autoload 'wharf/rpc.vim'
import autoload 'wharf/url.vim'

const CHOICE_REJECTED = -32015
const FILE_EXISTS = -32016
const DIALOG_NOT_FOUND = -32013
const DIALOG_ENDED = -32014

const HIGHLIGHTS = {
  WharfDirectory: 'Directory',
  WharfDisabled: 'Comment',
  WharfMarked: 'Type',
  WharfAction: 'Title',
  WharfDetail: 'Comment',
  WharfNote: 'Comment',
  WharfError: 'ErrorMsg',
  WharfWarning: 'WarningMsg',
  WharfPrompt: 'Question',
  WharfCursor: 'Cursor',
}

def Define()
  for [name, target] in items(HIGHLIGHTS)
    execute 'highlight default link ' .. name .. ' ' .. target
  endfor
  for [prop, group] in [['wharf_dir', 'WharfDirectory'], ['wharf_disabled', 'WharfDisabled'],
      ['wharf_marked', 'WharfMarked'], ['wharf_action', 'WharfAction'],
      ['wharf_detail', 'WharfDetail'], ['wharf_note', 'WharfNote'], ['wharf_error', 'WharfError'],
      ['wharf_warning', 'WharfWarning'], ['wharf_prompt', 'WharfPrompt'], ['wharf_cursor', 'WharfCursor']]
    if empty(prop_type_get(prop))
      prop_type_add(prop, {highlight: group, combine: true})
    endif
  endfor
enddef

def Option(name: string, default: any): any
  return get(g:, 'wharf_' .. name, default)
enddef

# MARK: Small helpers

def HumanSize(bytes: any): string
  if type(bytes) != v:t_number
    return ''
  endif
  var units = ['B', 'K', 'M', 'G', 'T']
  var size = 0.0 + bytes
  var unit = 0
  while size >= 1024 && unit < len(units) - 1
    size = size / 1024
    unit += 1
  endwhile
  if unit == 0
    return printf('%d B', bytes)
  endif
  return printf(size < 10 ? '%.1f %s' : '%.0f %s', size, units[unit])
enddef

def ShortDate(iso: any): string
  if type(iso) != v:t_string
    return ''
  endif
  var m = matchlist(iso, '^\(\d\+-\d\+-\d\+\)T\(\d\+:\d\+\)')
  return empty(m) ? iso : m[1] .. ' ' .. m[2]
enddef

# A folder for people: ~ for home; control characters as Vim shows them (^I, ^[).
def DisplayPath(dir_url: string): string
  var path = url.ToPath(dir_url)
  var home = $HOME
  if home != '' && home != '/'
    if path == home
      return '~'
    elseif stridx(path, home .. '/') == 0
      path = '~' .. strpart(path, strlen(home))
    endif
  endif
  return strtrans(path)
enddef

def Capitalized(text: string): string
  return substitute(text, '^\l', '\u&', '')
enddef

# A filter for people: a plain substring, or a glob when it has *, ? or [; case-insensitive.
def Matcher(pattern: string): func(string): bool
  if pattern == ''
    return (_) => true
  endif
  if pattern =~ '[*?[]'
    var regex = '\c' .. glob2regpat(pattern)
    return (name) => name =~ regex
  endif
  var needle = tolower(pattern)
  return (name) => stridx(tolower(name), needle) >= 0
enddef

# Whether a typed key is text (not a special key, not a control character).
def IsText(key: string): bool
  return key != '' && char2nr(key) >= 32 && char2nr(strpart(key, 0, 1)) != 0x80 && key != "\x7f"
enddef

# MARK: Opening and closing

var pickers: dict<dict<any>> = {}

# Each picker's entries and the ones its filter lets through, kept out of the picker's dict:
# Vim 9.0 takes time in proportion to what a dict holds each time one holding lists this long
# is passed to a function (100 ms a keystroke at 10,000 entries), and the picker's dict is
# passed everywhere.
var lists: dict<dict<list<any>>> = {}
var next_lists = 0

def NewLists(): number
  next_lists += 1
  lists[next_lists] = {entries: [], visible: []}
  return next_lists
enddef

def L(p: dict<any>): dict<list<any>>
  return get(lists, p.lid, {entries: [], visible: []})
enddef

# The entries a picker has listed so far (for tests and the bench).
export def Entries(p: dict<any>): list<any>
  return get(lists, p.lid, {entries: []}).entries
enddef

export def Open(d: dict<any>, show: dict<any>): dict<any>
  var kind = get(show, 'kind', 'importer')
  var filters = get(show, 'filters', {})
  var p: dict<any> = {
    d: d, show: show, kind: kind,
    multiple: get(show, 'allowsMultipleSelection', false) == true,
    folder_picker: kind == 'importer' && type(filters) == v:t_dict && get(filters, 'directories', false) == true,
    document_count: get(show, 'documentCount', 1),
    content_types: get(show, 'contentTypes', []),
    type_info: {}, marks: {}, mark_order: [], visible_for: '', lid: NewLists(),
    head: '', tail: '', entries_version: 0,
    show_hidden: index(get(show, 'browserOptions', []), 'includeHiddenFiles') >= 0,
    filter: '', mode: 'browse', input: '', help: false,
    dir: '', parent: v:null, dir_enabled: v:null, dir_disabled_reason: v:null,
    next_cursor: v:null, loading: false, generation: 0, closed: false,
    notice: '', notice_prop: 'wharf_note', choosing: false, chosen_type: '', target: '',
    page_size: 200, winid: 0, status: 0, cur: 0, top: 0,
  }
  if type(p.document_count) != v:t_number
    p.document_count = 1
  endif
  try
    p.page_size = PageSize()
    Define()
    CreatePopups(p)
    Render(p)
    DescribeTypes(p)
    List(p, get(show, 'directory', v:null), '')
  catch
    Crash(p, v:exception)
  endtry
  return p
enddef

# Cells for a size option: a fraction of `total` (up to 1) or a number of cells. Checked by type
# first: Vim 9.0 cannot catch the error of comparing a string with a number.
def Cells(value: any, name: string, total: number, minimum: number): number
  if type(value) != v:t_number && type(value) != v:t_float || value <= 0
    throw printf('g:wharf_window.%s must be a fraction of the screen or a number of cells, not %s', name, string(value))
  endif
  var cells = value <= 1 ? float2nr(total * value) : float2nr(0.0 + value)
  return max([1, min([cells, total - 6]), min([minimum, total - 6])])
enddef

def PageSize(): number
  var size = Option('page_size', 200)
  if type(size) != v:t_number || size < 1
    throw 'g:wharf_page_size must be a whole number of entries (at least 1), not ' .. string(size)
  endif
  return size
enddef

def Geometry(): dict<number>
  var win = Option('window', {})
  if type(win) != v:t_dict
    throw 'g:wharf_window must be a dict, not ' .. string(win)
  endif
  var columns = &columns
  var lines = &lines - &cmdheight - 1
  var width = Cells(get(win, 'width', 0.6), 'width', columns, 50)
  var height = Cells(get(win, 'height', 0.6), 'height', lines - 1, 8)
  return {width: width, height: height,
    line: max([1, (lines - height - 3) / 2]), col: max([1, (columns - width - 4) / 2 + 1])}
enddef

def CreatePopups(p: dict<any>)
  var g = Geometry()
  p.width = g.width
  p.height = g.height
  p.winid = popup_create([], {
    line: g.line, col: g.col,
    minwidth: g.width, maxwidth: g.width, minheight: g.height, maxheight: g.height,
    border: [], borderchars: ['─', '│', '─', '│', '╭', '╮', '╯', '╰'], padding: [0, 1, 0, 1],
    title: Title(p), cursorline: 1, wrap: 0, mapping: 0, zindex: 200, scrollbar: 1,
    highlight: 'Normal', borderhighlight: ['Normal'],
    filter: (_, key) => Key(p, key),
    callback: (_, result) => PopupClosed(p, result),
  })
  p.status = popup_create('', {
    line: g.line + g.height + 2, col: g.col, minwidth: g.width + 4, maxwidth: g.width + 4,
    minheight: 1, maxheight: 3, wrap: 1, zindex: 201, highlight: 'Normal',
  })
  setbufvar(winbufnr(p.winid), '&filetype', 'wharf')
  pickers[string(p.winid)] = p
  augroup wharf_picker
    autocmd!
    autocmd VimResized * wharf#picker#Resized()
  augroup END
enddef

# The screen changed size: each picker takes its size and place again.
export def Resized()
  for p in values(pickers)
    Guard(p, () => {
      var g = Geometry()
      p.width = g.width
      p.height = g.height
      popup_move(p.winid, {line: g.line, col: g.col, minwidth: g.width, maxwidth: g.width, minheight: g.height, maxheight: g.height})
      popup_move(p.status, {line: g.line + g.height + 2, col: g.col, minwidth: g.width + 4, maxwidth: g.width + 4})
      Render(p)
    })
  endfor
enddef

# Takes the popups down (the dialog itself is ended by whoever called this).
export def Close(p: dict<any>)
  if p.closed
    return
  endif
  p.closed = true
  if has_key(pickers, string(p.winid))
    remove(pickers, string(p.winid))
  endif
  if has_key(lists, p.lid)
    remove(lists, p.lid)
  endif
  if p.winid != 0
    popup_close(p.winid)
  endif
  if p.status != 0
    popup_close(p.status)
  endif
  redraw
enddef

# Closed by anything but the picker itself (popup_clear(), CTRL-C): the person dismissed it.
def PopupClosed(p: dict<any>, _: any)
  if !p.closed
    p.closed = true
    if has_key(pickers, string(p.winid))
      remove(pickers, string(p.winid))
    endif
    if has_key(lists, p.lid)
      remove(lists, p.lid)
    endif
    popup_close(p.status)
    EndWith(p, 'dialog/dismiss', {})
  endif
enddef

def EndWith(p: dict<any>, method: string, extra: dict<any>)
  var d = p.d
  if d.id != '' && !d.done
    rpc.Request(method, extend({dialogId: d.id}, extra), (err, _) => {
      if err != null && err.code == -32601 && method == 'dialog/fail'
        rpc.Request('dialog/dismiss', {dialogId: d.id}, (_, _) => 0)
      endif
    })
  endif
enddef

def Dismiss(p: dict<any>)
  Close(p)
  EndWith(p, 'dialog/dismiss', {})
enddef

# An error inside the picker: the popup goes, and the dialog is given up with the error.
def Crash(p: dict<any>, err: string)
  var first = matchstr(err, '^[^\n]*')
  var was_closed = p.closed
  if !was_closed
    Close(p)
  endif
  if was_closed || p.d.done
    return
  endif
  echohl ErrorMsg
  echomsg 'wharf: the dialog failed: ' .. first
  echohl None
  EndWith(p, 'dialog/fail', {message: first})
enddef

# Runs `F` for picker `p`, unless it is closed; an error fails the dialog.
def Guard(p: dict<any>, F: func)
  if p.closed
    return
  endif
  try
    F()
  catch
    Crash(p, v:exception .. ' (' .. v:throwpoint .. ')')
  endtry
enddef

# MARK: What it shows

def DefaultVerb(p: dict<any>): string
  if p.kind == 'exporter'
    return 'Save'
  endif
  return p.folder_picker ? 'Choose' : 'Open'
enddef

def FilterName(p: dict<any>): string
  var filters = get(p.show, 'filters', {})
  if type(filters) != v:t_dict
    filters = {}
  endif
  if p.kind == 'exporter'
    var chosen = p.chosen_type != '' ? p.chosen_type : get(p.content_types, 0, '')
    var info = get(p.type_info, chosen, {})
    return type(get(info, 'description', v:null)) == v:t_string ? Capitalized(info.description) : chosen
  endif
  if empty(get(filters, 'globs', [])) && empty(get(filters, 'mimeTypes', []))
    if get(filters, 'directories', false) == true
      return 'Folders'
    endif
    if get(filters, 'allowsAllFiles', true) != false
      return 'All files'
    endif
  endif
  var names: list<string> = []
  for identifier in get(p.show, 'allowedContentTypes', [])
    var info = get(p.type_info, identifier, {})
    var name = type(get(info, 'description', v:null)) == v:t_string ? info.description : identifier
    names->add(empty(names) ? Capitalized(name) : name)
  endfor
  return join(names, ', ')
enddef

def Title(p: dict<any>): string
  var title = get(p.show, 'title', v:null)
  var head = [type(title) == v:t_string && title != '' ? title
    : DefaultVerb(p) .. (p.kind == 'importer' && p.folder_picker ? ' Folder' : '')]
  var filter = FilterName(p)
  if filter != ''
    head->add(filter)
  endif
  var tail = p.filter != '' ? ' · /' .. p.filter : ''
  if has_key(p, 'height') && RowCount(p) > p.height
    tail ..= printf(' · %d/%d', p.cur + 1, RowCount(p))
  endif
  var path = p.dir != '' ? DisplayPath(p.dir) : '…'
  var width = get(p, 'width', 60)
  var text = strtrans(join(head, ' · ') .. ' · ')
  # The folder gives way first (its start), then the rest.
  var room = width - 2 - strdisplaywidth(text) - strdisplaywidth(strtrans(tail))
  if strdisplaywidth(path) > room && room > 8
    while strdisplaywidth(path) > room - 1 && strchars(path) > 1
      path = strcharpart(path, 1)
    endwhile
    path = '…' .. path
  endif
  text = ' ' .. text .. path .. strtrans(tail) .. ' '
  if strdisplaywidth(text) > width
    text = ' …' .. strcharpart(text, strchars(text) - (width - 3))
  endif
  return text
enddef

def CanMark(p: dict<any>): bool
  return p.kind == 'importer' && (p.multiple || p.folder_picker)
enddef

def KeysLine(p: dict<any>): string
  var mark = CanMark(p) ? '<Tab> mark · ' : ''
  for keys in [
      '<CR> open · ' .. mark .. '- up · ~ home · . hidden · / filter · q cancel · ? help',
      '<CR> open · ' .. mark .. '- up · ~ home · / filter · q cancel · ? help',
      '<CR> open · ' .. mark .. '- up · / filter · q cancel · ? help',
      '<CR> open · - up · / filter · q cancel · ? help']
    if strdisplaywidth(keys) <= p.width + 2
      return keys
    endif
  endfor
  return '? help'
enddef

def FolderRefused(p: dict<any>): bool
  return p.folder_picker && empty(p.mark_order) && p.dir_enabled == false
enddef

def Say(p: dict<any>, text: string, level: string = 'warning')
  p.notice = strtrans(text)
  p.notice_prop = level == 'error' ? 'wharf_error' : 'wharf_warning'
  UpdateStatus(p)
enddef

def Refuse(p: dict<any>, entry: dict<any>)
  var reason = get(entry, 'disabledReason', v:null)
  Say(p, get(entry, 'name', '') .. ' cannot be chosen' .. (type(reason) == v:t_string ? ': ' .. reason : ' in this dialog'))
enddef

def ActionText(p: dict<any>): string
  var label = get(p.show, 'confirmationLabel', v:null)
  if type(label) != v:t_string || label == ''
    label = ''
  endif
  var marked = len(p.mark_order)
  if p.kind == 'exporter'
    if p.document_count > 1
      return printf('» %s %d documents here', label != '' ? label : 'Save', p.document_count)
    endif
    return printf('» %s here as %s…', label != '' ? label : 'Save', strtrans(SuggestedName(p)))
  endif
  if p.folder_picker && marked == 0
    return '» ' .. (label != '' ? label : 'Choose') .. ' this folder'
  endif
  if p.multiple || marked > 0
    return printf('» %s %d marked', label != '' ? label : (p.folder_picker ? 'Choose' : 'Open'), marked)
  endif
  return ''
enddef

def VisibleEntries(p: dict<any>): list<dict<any>>
  if p.filter == ''
    return L(p).entries
  endif
  var Matches = Matcher(p.filter)
  return L(p).entries->copy()->filter((_, e) => Matches(get(e, 'name', '')))
enddef

const HELP = [
  '<CR>     open a folder, choose a file (or run the » line)',
  '<Tab>    mark or unmark for a multiple selection',
  '-        parent folder          ~   home folder',
  '.        show or hide hidden files',
  '/        filter names (a substring, or a glob with * ? [)',
  'j k ↓ ↑  move   <C-d> <C-u> half a page   g G first, last',
  'q <Esc>  cancel the dialog',
  '',
  'Any key goes back to the folder.',
]

def EntryLine(p: dict<any>, entry: dict<any>): dict<any>
  var mark = has_key(p.marks, entry.url) ? '+ ' : '  '
  var name = strtrans(get(entry, 'name', '')) .. (get(entry, 'isDirectory', false) == true ? '/' : '')
  var is_dir = get(entry, 'isDirectory', false) == true
  var enabled = get(entry, 'enabled', false) == true
  var detail = (is_dir ? '' : HumanSize(get(entry, 'size', v:null))) .. '  ' .. ShortDate(get(entry, 'modified', v:null))
  var room = p.width - strdisplaywidth(detail) - 1
  var left = mark .. name
  if strdisplaywidth(left) > room
    while strdisplaywidth(left) > room - 1 && strchars(left) > 3
      left = strcharpart(left, 0, strchars(left) - 1)
    endwhile
    left ..= '…'
  endif
  var text = left .. repeat(' ', max([1, p.width - strdisplaywidth(left) - strdisplaywidth(detail)])) .. detail
  var prop = ''
  if has_key(p.marks, entry.url)
    prop = 'wharf_marked'
  elseif is_dir && (enabled || !p.folder_picker)
    prop = 'wharf_dir'
  elseif !enabled
    prop = 'wharf_disabled'
  endif
  var props: list<dict<any>> = []
  if prop != ''
    props->add({col: 1, length: strlen(left), type: prop})
  endif
  props->add({col: strlen(text) - strlen(detail) + 1, length: strlen(detail),
    type: enabled || is_dir ? 'wharf_detail' : 'wharf_disabled'})
  return {text: text, props: props}
enddef

# The rows are the » line (p.head), the entries the filter lets through (L(p).visible) and a note
# (p.tail), made on demand: nothing here is proportional to the folder but the filter itself,
# and it runs only when the filter or the entries change.
def RowCount(p: dict<any>): number
  return (p.head != '' ? 1 : 0) + len(L(p).visible) + (p.tail != '' ? 1 : 0)
enddef

def RowAt(p: dict<any>, i: number): dict<any>
  var j = i - (p.head != '' ? 1 : 0)
  if j < 0
    return {kind: 'action', text: p.head}
  elseif j < len(L(p).visible)
    return {kind: 'entry', entry: L(p).visible[j]}
  endif
  return {kind: 'note', text: p.tail}
enddef

# Works out the rows again and shows them.
def Render(p: dict<any>)
  if p.closed
    return
  endif
  if p.help
    popup_settext(p.winid, HELP)
    popup_setoptions(p.winid, {title: ' Wharf: keys '})
    UpdateStatus(p)
    return
  endif
  p.head = ActionText(p)
  var key = p.filter .. "\n" .. p.entries_version
  if key !=# p.visible_for
    var store = lists[p.lid]
    store.visible = VisibleEntries(p)
    p.visible_for = key
  endif
  var note = ''
  if p.dir == ''
    note = '  loading…'
  elseif empty(L(p).visible)
    note = p.filter != '' && !empty(L(p).entries) ? '  (nothing matches /' .. strtrans(p.filter) .. ')' : '  (empty folder)'
  elseif p.next_cursor != null
    note = '  … more below'
  endif
  p.tail = note
  Show(p)
  UpdateStatus(p)
enddef

def LineFor(p: dict<any>, row: dict<any>): dict<any>
  if row.kind == 'entry'
    return EntryLine(p, row.entry)
  endif
  var type = row.kind == 'note' ? 'wharf_note' : (FolderRefused(p) ? 'wharf_disabled' : 'wharf_action')
  return {text: row.text, props: [{col: 1, length: strlen(row.text), type: type}]}
enddef

# Draws the rows that fit, from p.top: the popup holds only what is on the screen, so that a
# keystroke in a folder of 100,000 entries costs what one in a folder of 20 does.
def Show(p: dict<any>)
  var n = RowCount(p)
  p.cur = max([0, min([p.cur, n - 1])])
  p.top = max([0, min([p.top, n - p.height])])
  if p.cur < p.top
    p.top = p.cur
  elseif p.cur >= p.top + p.height
    p.top = p.cur - p.height + 1
  endif
  popup_settext(p.winid, range(p.top, min([n, p.top + p.height]) - 1)->map((_, i) => LineFor(p, RowAt(p, i))))
  win_execute(p.winid, 'normal! ' .. (p.cur - p.top + 1) .. 'G')
  popup_setoptions(p.winid, {title: Title(p)})
enddef

# The line under the list: what is being typed, else a notice, else why the entry under the
# cursor cannot be chosen, else the dialog's message, else the keys.
def UpdateStatus(p: dict<any>)
  if p.closed
    return
  endif
  var text = ''
  var prop = 'wharf_note'
  var cursor = false
  if p.mode == 'filter'
    text = '/' .. strtrans(p.filter)
    prop = 'wharf_prompt'
    cursor = true
  elseif p.mode == 'name'
    var label = get(p.show, 'filenameLabel', v:null)
    text = (type(label) == v:t_string && label != '' ? label : 'Save as') .. ': ' .. strtrans(p.input)
    prop = 'wharf_prompt'
    cursor = true
  elseif p.mode == 'type'
    var choices = range(len(p.content_types))->mapnew((i, _) => (i + 1) .. ' ' .. TypeLabel(p, p.content_types[i]))
    text = 'Save as type: ' .. join(choices, ' · ') .. '  (<Esc> back)'
    prop = 'wharf_prompt'
  elseif p.mode == 'replace'
    text = (p.document_count > 1 ? 'Some of these files already exist.' : strtrans(url.Basename(p.target)) .. ' already exists.') .. ' Replace? (y/n)'
    prop = 'wharf_warning'
  elseif p.notice != ''
    text = p.notice
    prop = p.notice_prop
  else
    var row = CurrentRow(p)
    if get(row, 'kind', '') == 'entry' && get(row.entry, 'enabled', false) != true
        && !(get(row.entry, 'isDirectory', false) == true && !p.folder_picker)
      var reason = get(row.entry, 'disabledReason', v:null)
      text = strtrans(get(row.entry, 'name', '')) .. ' cannot be chosen' .. (type(reason) == v:t_string ? ': ' .. reason : '')
      prop = 'wharf_disabled'
    elseif get(row, 'kind', '') == 'action' && FolderRefused(p) && type(p.dir_disabled_reason) == v:t_string
      text = 'this folder cannot be chosen: ' .. p.dir_disabled_reason
      prop = 'wharf_disabled'
    elseif type(get(p.show, 'message', v:null)) == v:t_string && p.show.message != ''
      text = strtrans(p.show.message)
    else
      text = KeysLine(p)
    endif
  endif
  var line = ' ' .. text
  var props = [{col: 1, length: strlen(line), type: prop}]
  if cursor
    props->add({col: strlen(line) + 1, length: 1, type: 'wharf_cursor'})
    line ..= ' '
  endif
  popup_settext(p.status, [{text: line, props: props}])
enddef

def CurrentRow(p: dict<any>): dict<any>
  if p.closed || p.help || p.cur < 0 || p.cur >= RowCount(p)
    return {}
  endif
  return RowAt(p, p.cur)
enddef

# Puts the cursor on row `lnum` (1-based, over all rows), scrolling when it leaves the screen.
def SetCursor(p: dict<any>, lnum: number)
  var cur = max([0, min([lnum - 1, RowCount(p) - 1])])
  p.cur = cur
  if cur < p.top || cur >= p.top + p.height
    Show(p)
  else
    win_execute(p.winid, 'normal! ' .. (cur - p.top + 1) .. 'G')
    if RowCount(p) > p.height
      popup_setoptions(p.winid, {title: Title(p)})
    endif
  endif
enddef

# Puts the cursor on the row showing `target` (a URL), else on the first entry.
def PlaceCursor(p: dict<any>, target: string)
  var offset = p.head != '' ? 1 : 0
  var index = 0
  if target != ''
    var i = 0
    for entry in L(p).visible
      if entry.url == target
        index = i
        break
      endif
      i += 1
    endfor
  endif
  SetCursor(p, empty(L(p).visible) ? 1 : index + offset + 1)
enddef

# MARK: Listing

def DescribeTypes(p: dict<any>)
  var identifiers = get(p.show, 'allowedContentTypes', []) + p.content_types
  if empty(identifiers)
    return
  endif
  rpc.Request('contentTypes/describe', {identifiers: identifiers}, (err, result) => Guard(p, () => {
    if err != null || type(result) != v:t_dict
      return
    endif
    for info in get(result, 'types', [])
      if type(info) == v:t_dict && has_key(info, 'identifier') && !has_key(info, 'error')
        p.type_info[info.identifier] = info
      endif
    endfor
    var lnum = (p.cur + 1)
    Render(p)
    SetCursor(p, lnum)
  }))
enddef

# Lists `directory` (a URL; v:null: where the dialog is), replacing what is shown.
def List(p: dict<any>, directory: any, cursor_on: string)
  p.generation += 1
  var gen = p.generation
  var params: dict<any> = {dialogId: p.d.id, limit: p.page_size, showHidden: p.show_hidden}
  if directory != null
    params.directory = directory
  endif
  p.loading = true
  rpc.Request('dialog/list', params, (err, result) => Guard(p, () => Listed(p, gen, err, result, cursor_on)))
enddef

def Listed(p: dict<any>, gen: number, err: any, result: any, cursor_on: string)
  if gen != p.generation
    return
  endif
  p.loading = false
  if err != null
    if err.code == DIALOG_ENDED || err.code == DIALOG_NOT_FOUND
      Close(p)
      return
    endif
    Say(p, get(err, 'message', 'could not list the folder'), 'error')
    if p.dir == ''
      throw 'dialog/list failed: ' .. get(err, 'message', '')
    endif
    return
  endif
  var first = p.dir == ''
  p.dir = result.directory
  p.dir_enabled = get(result, 'directoryEnabled', v:null)
  p.dir_disabled_reason = get(result, 'directoryDisabledReason', v:null)
  p.parent = get(result, 'parent', v:null)
  var store = lists[p.lid]
  store.entries = get(result, 'entries', [])
  p.entries_version += 1
  p.next_cursor = get(result, 'nextCursor', v:null)
  p.notice = ''
  Render(p)
  PlaceCursor(p, cursor_on)
  MaybeLoadMore(p)
  if first && exists('#User#WharfPickerShown')
    g:wharf_picker_winid = p.winid
    doautocmd <nomodeline> User WharfPickerShown
  endif
enddef

# Fetches the next page when the cursor nears the end, when the list does not fill the popup,
# or while a name filter is on (it must see every name).
def MaybeLoadMore(p: dict<any>)
  if p.loading || p.next_cursor == null || p.closed
    return
  endif
  var lnum = (p.cur + 1)
  if !(lnum >= RowCount(p) - 2 || RowCount(p) < p.height || p.filter != '')
    return
  endif
  var gen = p.generation
  p.loading = true
  rpc.Request('dialog/list', {dialogId: p.d.id, directory: p.dir, cursor: p.next_cursor, limit: p.page_size},
    (err, result) => Guard(p, () => {
      if gen != p.generation
        return
      endif
      p.loading = false
      if err != null
        p.next_cursor = v:null
        Say(p, get(err, 'message', 'could not list more'), 'error')
        return
      endif
      var keep = (p.cur + 1)
      var store = lists[p.lid]
      store.entries += get(result, 'entries', [])
      p.entries_version += 1
      p.next_cursor = get(result, 'nextCursor', v:null)
      Render(p)
      SetCursor(p, keep)
      MaybeLoadMore(p)
    }))
enddef

# MARK: Keys

def Key(p: dict<any>, key: string): bool
  Guard(p, () => HandleKey(p, key))
  return true
enddef

def HandleKey(p: dict<any>, key: string)
  if p.help
    p.help = false
    Render(p)
    PlaceCursor(p, '')
    return
  endif
  if p.mode == 'filter'
    FilterKey(p, key)
  elseif p.mode == 'name'
    NameKey(p, key)
  elseif p.mode == 'type'
    TypeKey(p, key)
  elseif p.mode == 'replace'
    ReplaceKey(p, key)
  else
    BrowseKey(p, key)
  endif
enddef

def Move(p: dict<any>, lnum: number)
  SetCursor(p, lnum)
  p.notice = ''
  UpdateStatus(p)
  MaybeLoadMore(p)
enddef

def BrowseKey(p: dict<any>, key: string)
  var lnum = (p.cur + 1)
  var half = max([1, p.height / 2])
  if key == 'j' || key == "\<Down>" || key == "\<C-N>"
    Move(p, lnum + 1)
  elseif key == 'k' || key == "\<Up>" || key == "\<C-P>"
    Move(p, lnum - 1)
  elseif key == "\<C-D>" || key == "\<PageDown>" || key == "\<C-F>"
    Move(p, lnum + (key == "\<C-D>" ? half : p.height))
  elseif key == "\<C-U>" || key == "\<PageUp>" || key == "\<C-B>"
    Move(p, lnum - (key == "\<C-U>" ? half : p.height))
  elseif key == 'g' || key == "\<Home>"
    Move(p, 1)
  elseif key == 'G' || key == "\<End>"
    Move(p, RowCount(p))
  elseif key == "\<CR>" || key == "\<NL>"
    Activate(p)
  elseif key == "\<Tab>"
    ToggleMark(p)
  elseif key == '-'
    GoParent(p)
  elseif key == '~'
    List(p, url.FromPath($HOME), '')
  elseif key == '.'
    p.show_hidden = !p.show_hidden
    var row = CurrentRow(p)
    List(p, p.dir, get(row, 'kind', '') == 'entry' ? row.entry.url : '')
  elseif key == '/'
    p.mode = 'filter'
    p.notice = ''
    UpdateStatus(p)
  elseif key == 'q' || key == "\<Esc>" || key == "\<C-C>"
    Dismiss(p)
  elseif key == '?'
    p.help = true
    Render(p)
  endif
enddef

# Typing into the status line: returns the text after `key`, or v:null when `key` is not an
# edit (<CR>, <Esc>, …).
def Edit(text: string, key: string): any
  if key == "\<BS>" || key == "\<C-H>"
    return strcharpart(text, 0, strchars(text) - 1)
  elseif key == "\<C-U>"
    return ''
  elseif key == "\<C-W>"
    return substitute(text, '\S*\s*$', '', '')
  elseif IsText(key)
    return text .. key
  endif
  return v:null
enddef

def FilterKey(p: dict<any>, key: string)
  if key == "\<CR>" || key == "\<NL>"
    p.mode = 'browse'
    UpdateStatus(p)
    return
  elseif key == "\<Esc>" || key == "\<C-C>"
    p.mode = 'browse'
    p.filter = ''
  elseif (key == "\<BS>" || key == "\<C-H>") && p.filter == ''
    p.mode = 'browse'
  else
    var text = Edit(p.filter, key)
    if text == null
      return
    endif
    p.filter = text
  endif
  Render(p)
  PlaceCursor(p, '')
  MaybeLoadMore(p)
enddef

def NameKey(p: dict<any>, key: string)
  if key == "\<CR>" || key == "\<NL>"
    if trim(p.input) == ''
      return
    endif
    p.mode = 'browse'
    Save(p, url.Join(p.dir, p.input), false)
  elseif key == "\<Esc>" || key == "\<C-C>"
    p.mode = 'browse'
  else
    var text = Edit(p.input, key)
    if text == null
      return
    endif
    p.input = text
  endif
  UpdateStatus(p)
enddef

def TypeKey(p: dict<any>, key: string)
  if key == "\<Esc>" || key == "\<C-C>" || key == 'q'
    p.mode = 'browse'
    UpdateStatus(p)
    return
  endif
  var n = str2nr(key)
  if key =~ '^\d$' && n >= 1 && n <= len(p.content_types)
    p.chosen_type = p.content_types[n - 1]
    var lnum = (p.cur + 1)
    Render(p)
    SetCursor(p, lnum)
    AskName(p)
  endif
enddef

def ReplaceKey(p: dict<any>, key: string)
  if key ==? 'y'
    p.mode = 'browse'
    Save(p, p.target, true)
  elseif key ==? 'n' || key == "\<Esc>" || key == "\<C-C>" || key == 'q'
    p.mode = 'browse'
    UpdateStatus(p)
  endif
enddef

def GoParent(p: dict<any>)
  if p.dir == ''
    return
  endif
  if p.parent == null
    Say(p, 'already at /')
    return
  endif
  List(p, p.parent, p.dir)
enddef

def ToggleMark(p: dict<any>)
  var row = CurrentRow(p)
  if get(row, 'kind', '') != 'entry'
    return
  endif
  var entry = row.entry
  if !CanMark(p)
    Say(p, 'this dialog takes one ' .. (p.folder_picker ? 'folder' : 'file'))
    return
  endif
  if get(entry, 'enabled', false) != true
    Refuse(p, entry)
    return
  endif
  if has_key(p.marks, entry.url)
    remove(p.marks, entry.url)
    remove(p.mark_order, index(p.mark_order, entry.url))
  else
    if !p.multiple && !empty(p.mark_order)
      p.marks = {}
      p.mark_order = []
    endif
    p.marks[entry.url] = true
    p.mark_order->add(entry.url)
  endif
  var lnum = (p.cur + 1)
  var had_action = p.head != ''
  Render(p)
  var has_action = p.head != ''
  SetCursor(p, lnum + 1 + (has_action ? 1 : 0) - (had_action ? 1 : 0))
  UpdateStatus(p)
enddef

def Activate(p: dict<any>)
  var row = CurrentRow(p)
  var kind = get(row, 'kind', '')
  if kind == '' || kind == 'note'
    return
  endif
  if kind == 'action'
    if p.kind == 'exporter'
      SaveFlow(p, {})
    elseif !empty(p.mark_order)
      Choose(p, copy(p.mark_order))
    elseif FolderRefused(p)
      Say(p, url.Basename(p.dir) .. ' cannot be chosen' .. (type(p.dir_disabled_reason) == v:t_string ? ': ' .. p.dir_disabled_reason : ' in this dialog'))
    elseif p.folder_picker
      Choose(p, [p.dir])
    else
      Say(p, 'mark entries with <Tab> first')
    endif
    return
  endif
  var entry = row.entry
  if get(entry, 'isDirectory', false) == true
    List(p, entry.url, '')
    return
  endif
  if get(entry, 'enabled', false) != true
    Refuse(p, entry)
    return
  endif
  if p.kind == 'exporter'
    SaveFlow(p, entry)
    return
  endif
  var urls = copy(p.mark_order)
  if !has_key(p.marks, entry.url)
    if !p.multiple
      urls = []
    endif
    urls->add(entry.url)
  endif
  Choose(p, urls)
enddef

# MARK: Choosing

def Rejected(p: dict<any>, err: dict<any>)
  if err.code == DIALOG_ENDED || err.code == DIALOG_NOT_FOUND
    Close(p)
    return
  endif
  Say(p, get(err, 'message', 'the choice was refused'), err.code == CHOICE_REJECTED ? 'warning' : 'error')
enddef

def Choose(p: dict<any>, urls: list<string>)
  if p.choosing
    return
  endif
  p.choosing = true
  rpc.Request('dialog/choose', {dialogId: p.d.id, urls: urls}, (err, _) => Guard(p, () => {
    p.choosing = false
    if err != null
      Rejected(p, err)
    else
      Close(p)
    endif
  }))
enddef

# The name Wharf suggests for the type chosen so far (contentTypeChoices: Wharf's own rule).
def SuggestedName(p: dict<any>): string
  var chosen = p.chosen_type != '' ? p.chosen_type : get(p.content_types, 0, '')
  for choice in get(p.show, 'contentTypeChoices', [])
    var names = get(choice, 'filenames', [])
    if get(choice, 'contentType', '') == chosen && type(names) == v:t_list && !empty(names) && type(names[0]) == v:t_string
      return names[0]
    endif
  endfor
  var name = get(p.show, 'filename', v:null)
  return type(name) == v:t_string && name != '' ? name : 'Untitled'
enddef

def TypeLabel(p: dict<any>, identifier: string): string
  var info = get(p.type_info, identifier, {})
  if type(get(info, 'description', v:null)) == v:t_string
    var ext = get(info, 'preferredFilenameExtension', v:null)
    return Capitalized(info.description) .. (type(ext) == v:t_string && ext != '' ? ' (.' .. ext .. ')' : '')
  endif
  return identifier
enddef

# Export: the type (when there are several), the name (one document), then dialog/choose,
# asking before replacing a file. `entry` is a file the person pointed at: its exact name, from
# its URL (Wharf's `name` is for display), prefills the name.
def SaveFlow(p: dict<any>, entry: dict<any>)
  if p.choosing
    return
  endif
  p.entry_name = empty(entry) ? '' : url.Basename(entry.url)
  if len(p.content_types) > 1
    p.mode = 'type'
    UpdateStatus(p)
  else
    AskName(p)
  endif
enddef

def AskName(p: dict<any>)
  if p.document_count > 1
    p.mode = 'browse'
    Save(p, p.dir, false)
    return
  endif
  p.input = get(p, 'entry_name', '') != '' ? p.entry_name : SuggestedName(p)
  p.mode = 'name'
  UpdateStatus(p)
enddef

def Save(p: dict<any>, target: string, overwrite: bool)
  p.choosing = true
  p.target = target
  var params: dict<any> = {dialogId: p.d.id, url: target, overwrite: overwrite}
  if p.chosen_type != ''
    params.contentType = p.chosen_type
  endif
  rpc.Request('dialog/choose', params, (err, _) => Guard(p, () => {
    p.choosing = false
    if err == null
      Close(p)
    elseif err.code == FILE_EXISTS && !overwrite
      p.mode = 'replace'
      UpdateStatus(p)
    else
      Rejected(p, err)
    endif
  }))
enddef

# For tests and the bench: the picker of the popup `winid` (or the only one), as a dict.
export def Current(): dict<any>
  var all = values(pickers)
  return empty(all) ? {} : all[-1]
enddef

# Draws the status line again (for tests).
export def Refresh(p: dict<any>)
  UpdateStatus(p)
enddef
