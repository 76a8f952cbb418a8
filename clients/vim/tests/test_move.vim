vim9script
# Movers: wharf#move() and :WharfMove drawn in the popup picker's folder mode (the files moved in
# its title, "» Move here"), a name taken in the folder asked about on its status line, and the
# buffer following its file.

import './helpers.vim' as t

g:Cleanup = t.Cleanup

# Picks `name` of root/docs in the picker: Wharf grants it to this session.
def Grant(root: string, name: string): string
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, name)
  t.Keys(p, "\<CR>")
  var result = t.Result(rec)
  assert_equal([root .. '/docs/' .. name], get(result, 'paths', []))
  return root .. '/docs/' .. name
enddef

# Moves `files` with the picker into root/docs/sub: its » line there. Returns the picker.
def MoveIntoSub(root: string, files: list<string>, rec: dict<any>, options: dict<any> = {}): dict<any>
  wharf#move(files, extend({default_directory: root .. '/docs'}, options), rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, 'sub')
  t.Keys(p, "\<CR>")
  t.WaitFor(() => p.dir =~ '/sub$', 'sub listed')
  t.Keys(p, "g\<CR>")
  return p
enddef

def g:Test_move_two_files_into_a_folder_through_the_picker()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var a = Grant(root, 'a.txt')
  var b = Grant(root, 'b.txt')
  var rec = t.Recorder()
  wharf#move([a, b], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  assert_match('^ Move a\.txt, b\.txt to · Folders · ', popup_getoptions(p.winid).title)
  assert_equal('» Move here', t.Lines(p)[0])
  assert_true(index(t.PropsOf(p, 'a.txt'), 'wharf_disabled') >= 0, 'files are shown, not chosen')
  t.CursorTo(p, 'sub')
  t.Keys(p, "\<CR>")
  t.WaitFor(() => p.dir =~ '/sub$', 'sub listed')
  t.Keys(p, "g\<CR>")
  var result = t.Result(rec)
  assert_equal('completed', result.status)
  assert_equal([root .. '/docs/sub/a.txt', root .. '/docs/sub/b.txt'], result.paths)
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'))
  assert_equal(['beta'], readfile(root .. '/docs/sub/b.txt'))
  assert_false(filereadable(a))
  assert_true(p.closed)
  # The session holds the new places, and no longer the old.
  var again = t.Recorder()
  wharf#move([a], {}, again.Callback)
  assert_equal(-32020, get(get(t.Result(again), 'error', {}), 'code', 0))
enddef

def g:Test_a_mover_title_names_three_files_and_counts_the_rest()
  var root = t.Fixture()
  for name in ['d.txt', 'e.txt', 'f.txt']
    writefile([name], root .. '/docs/' .. name)
  endfor
  t.Use(root, 'vim')
  var files = ['a.txt', 'b.txt', 'd.txt', 'e.txt', 'f.txt']->mapnew((_, n) => Grant(root, n))
  var rec = t.Recorder()
  wharf#move(files, {title: 'Archive', default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  assert_match('^ Archive · Move a\.txt, b\.txt, d\.txt and 2 more to · Folders · ', popup_getoptions(p.winid).title)
  t.Keys(p, 'q')
  assert_equal({status: 'cancelled', reason: 'user'}, t.Result(rec))
  assert_true(filereadable(root .. '/docs/f.txt'))
enddef

def Conflict(root: string, answer: string): list<any>
  writefile(['older'], root .. '/docs/sub/a.txt')
  var a = Grant(root, 'a.txt')
  var rec = t.Recorder()
  var p = MoveIntoSub(root, [a], rec)
  assert_match('^a\.txt is already in .*/docs/sub\. r replace · k keep both · c cancel$', t.Status(p))
  assert_false(p.closed, 'the picker waits for the answer')
  t.Keys(p, answer)
  return [p, rec]
enddef

def g:Test_a_name_taken_is_replaced()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var [_, rec] = Conflict(root, 'r')
  var result = t.Result(rec)
  assert_equal([root .. '/docs/sub/a.txt'], result.paths)
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'))
  assert_false(filereadable(root .. '/docs/a.txt'))
enddef

def g:Test_a_name_taken_is_kept_beside()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var [_, rec] = Conflict(root, 'k')
  var result = t.Result(rec)
  assert_equal([root .. '/docs/sub/a 2.txt'], result.paths)
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a 2.txt'))
  assert_equal(['older'], readfile(root .. '/docs/sub/a.txt'))
  assert_false(filereadable(root .. '/docs/a.txt'))
enddef

def g:Test_a_name_taken_cancel_moves_nothing_and_the_picker_stays()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var [p, rec] = Conflict(root, 'c')
  assert_false(p.closed)
  assert_equal([], rec.calls)
  assert_match('nothing was moved', t.Status(p))
  t.Keys(p, 'q')
  assert_equal({status: 'cancelled', reason: 'user'}, t.Result(rec))
  assert_equal(['alpha'], readfile(root .. '/docs/a.txt'))
  assert_equal(['older'], readfile(root .. '/docs/sub/a.txt'))
  assert_equal(['a.txt'], readdir(root .. '/docs/sub'))
enddef

def g:Test_moving_a_file_never_granted_is_access_denied_and_nothing_shown()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#move([root .. '/docs/a.txt'], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal('failed', result.status)
  assert_equal(-32020, result.error.code)
  assert_equal([], popup_list())
  assert_equal(['alpha'], readfile(root .. '/docs/a.txt'))
enddef

def g:Test_move_through_the_script_presenter_with_a_url()
  var root = t.Fixture()
  writefile([json_encode([{choose: [root .. '/docs/a.txt']}, {expect: {kind: 'mover'}}, {choose: [root .. '/docs/sub']}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var pick = t.Recorder()
  wharf#import([], {}, pick.Callback)
  assert_equal('completed', t.Result(pick).status)
  var rec = t.Recorder()
  wharf#move(['file://' .. root .. '/docs/a.txt'], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal([root .. '/docs/sub/a.txt'], result.paths)
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'))
enddef

def g:Test_mover_bad_options_fail_without_wharf()
  g:wharf_cmd = ['/no-such-wharf']
  var rec = t.Recorder()
  wharf#move([], {}, rec.Callback)
  assert_equal([], rec.calls, 'the callback is called later')
  assert_equal({status: 'failed', error: {code: -32602, message: 'paths: a non-empty list of files to move is needed'}}, t.Result(rec))
  var other = t.Recorder()
  wharf#move(['/tmp/a'], {url_enabled: {isHidden: false}}, other.Callback)
  assert_equal({status: 'failed', error: {code: -32602, message: 'url_enabled: a mover takes no url_enabled'}}, t.Result(other))
  var third = t.Recorder()
  wharf#move(['/tmp/a'], {multiple: true}, third.Callback)
  assert_equal(-32602, t.Result(third).error.code)
enddef

# :WharfOpen of a.txt through the picker: a file Wharf gave Vim.
def OpenA(root: string)
  execute 'cd ' .. fnameescape(root .. '/docs')
  WharfOpen
  var p = t.Picker()
  t.CursorTo(p, 'a.txt')
  t.Keys(p, "\<CR>")
  t.WaitFor(() => expand('%:p') == root .. '/docs/a.txt', 'a.txt edited')
enddef

def MoveBufferIntoSub(root: string)
  WharfMove
  var p = t.Picker()
  assert_match('^ Move a\.txt to · ', popup_getoptions(p.winid).title)
  t.CursorTo(p, 'sub')
  t.Keys(p, "\<CR>")
  t.WaitFor(() => p.dir =~ '/sub$', 'sub listed')
  t.Keys(p, "g\<CR>")
  t.WaitFor(() => expand('%:p') == root .. '/docs/sub/a.txt', 'the buffer to follow its file')
enddef

def g:Test_WharfMove_moves_the_file_and_the_buffer_follows()
  var root = t.Fixture()
  t.Use(root, 'vim')
  OpenA(root)
  var buf = bufnr()
  MoveBufferIntoSub(root)
  assert_equal(buf, bufnr(), 'the same buffer')
  assert_false(&modified)
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'))
  assert_false(filereadable(root .. '/docs/a.txt'))
  assert_match('wharf: moved to .*/docs/sub/a\.txt', execute('messages'))
  # Vim knows the buffer as edited there: :write needs no !.
  setline(1, 'alpha, moved')
  write
  assert_equal(['alpha, moved'], readfile(root .. '/docs/sub/a.txt'))
  assert_false(filereadable(root .. '/docs/a.txt'))
  bwipeout!
enddef

def g:Test_WharfMove_keeps_unsaved_changes_unsaved()
  var root = t.Fixture()
  t.Use(root, 'vim')
  OpenA(root)
  setline(1, 'unsaved')
  MoveBufferIntoSub(root)
  assert_true(&modified, 'still modified')
  assert_equal(['unsaved'], getline(1, '$'))
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'), 'the file as it was saved')
  write
  assert_equal(['unsaved'], readfile(root .. '/docs/sub/a.txt'))
  bwipeout!
enddef

def g:Test_WharfMove_of_a_file_Wharf_did_not_give_says_why()
  var root = t.Fixture()
  t.Use(root, 'vim')
  execute 'edit ' .. fnameescape(root .. '/docs/b.txt')
  messages clear
  WharfMove
  t.WaitFor(() => execute('messages') =~ 'was not given to Vim through Wharf', 'the refusal')
  assert_match(':WharfOpen (or save it with :WharfSaveAs) first', execute('messages'))
  assert_equal([], popup_list())
  assert_equal(root .. '/docs/b.txt', expand('%:p'))
  assert_equal(['beta'], readfile(root .. '/docs/b.txt'))
  bwipeout!
enddef

def g:Test_WharfMove_in_a_buffer_without_a_file()
  enew!
  messages clear
  WharfMove
  assert_match('this buffer has no file to move', execute('messages'))
  assert_equal([], popup_list())
enddef

def g:Test_WharfMove_replacing_a_file_open_in_another_buffer_keeps_the_names()
  var root = t.Fixture()
  writefile(['older'], root .. '/docs/sub/a.txt')
  t.Use(root, 'vim')
  OpenA(root)
  var buf = bufnr()
  execute 'badd ' .. fnameescape(root .. '/docs/sub/a.txt')
  var other = bufnr(root .. '/docs/sub/a.txt')
  messages clear
  WharfMove
  var p = t.Picker()
  t.CursorTo(p, 'sub')
  t.Keys(p, "\<CR>")
  t.WaitFor(() => p.dir =~ '/sub$', 'sub listed')
  t.Keys(p, "g\<CR>")
  t.Keys(p, 'r')
  t.WaitFor(() => execute('messages') =~ 'it is also open in buffer ' .. other, 'the warning')
  assert_equal(['alpha'], readfile(root .. '/docs/sub/a.txt'), 'moved, replacing')
  assert_equal(buf, bufnr())
  assert_equal(root .. '/docs/a.txt', expand('%:p'), 'the buffer keeps its name, as :saveas would')
  execute 'bwipeout! ' .. other
  bwipeout!
enddef
