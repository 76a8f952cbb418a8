vim9script
# Importers: through the script presenter, and through the popup picker with real keys.

import './helpers.vim' as t

g:Cleanup = t.Cleanup

def g:Test_import_one_through_the_script_presenter()
  var root = t.Fixture()
  writefile([json_encode([{choose: [root .. '/docs/a.txt']}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal({status: 'completed', urls: ['file://' .. root .. '/docs/a.txt'], paths: [root .. '/docs/a.txt']}, result)
enddef

def g:Test_picker_lists_folders_first_and_dims_what_cannot_be_chosen()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import('public.plain-text', {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  var lines = t.Lines(p)
  assert_match('^  sub/', lines[0])
  assert_match('^  a.txt .* 6 B  \d\d\d\d-\d\d-\d\d \d\d:\d\d$', lines[1])
  assert_match('^  b.txt', lines[2])
  assert_match('^  c.png', lines[3])
  assert_equal(4, len(lines), 'hidden files are not listed at first')
  assert_equal(['wharf_dir', 'wharf_detail'], t.PropsOf(p, 'sub'))
  assert_equal(['wharf_detail'], t.PropsOf(p, 'a.txt'))
  assert_equal(['wharf_disabled', 'wharf_disabled'], t.PropsOf(p, 'c.png'))
  assert_match(' Open · Plain text · ', popup_getoptions(p.winid).title)
  assert_match(fnamemodify(root, ':t') .. '/docs $', popup_getoptions(p.winid).title)
  assert_match('<CR> open', t.Status(p))
  t.Keys(p, 'q')
  assert_equal({status: 'cancelled', reason: 'user'}, t.Result(rec))
  assert_true(p.closed)
enddef

def g:Test_a_refused_pick_says_why_and_leaves_the_dialog_open()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, 'c.png')
  assert_equal('c.png cannot be chosen: it is of type public.png, and this dialog takes only public.plain-text', t.Status(p))
  t.Keys(p, "\<CR>")
  assert_false(p.closed)
  assert_equal([], rec.calls)
  assert_equal('c.png cannot be chosen: it is of type public.png, and this dialog takes only public.plain-text', t.Status(p))
  t.Keys(p, 'k')
  assert_match('<CR> open', t.Status(p), 'the reason goes with the cursor')
  t.Keys(p, "\<CR>")
  var result = t.Result(rec)
  assert_equal('completed', result.status)
  assert_equal([root .. '/docs/b.txt'], result.paths)
enddef

def g:Test_import_several_marked_with_tab()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs', multiple: true}, rec.Callback)
  var p = t.Picker()
  assert_equal('» Open 0 marked', t.Lines(p)[0])
  assert_match('<Tab> mark', t.Status(p))
  t.CursorTo(p, 'a.txt')
  t.Keys(p, "\<Tab>")
  assert_equal('b.txt', matchstr(t.Lines(p)[line('.', p.winid) - 1], '\S\+'), 'Tab moves down')
  t.Keys(p, "\<Tab>")
  assert_equal('» Open 2 marked', t.Lines(p)[0])
  assert_match('^+ a.txt', t.Lines(p)[2])
  assert_match('^+ b.txt', t.Lines(p)[3])
  assert_equal('wharf_marked', t.PropsOf(p, 'a.txt')[0])
  t.Keys(p, "\<Tab>")
  assert_match('c.png cannot be chosen: it is of type public.png', t.Status(p), 'a dimmed entry cannot be marked')
  t.Keys(p, 'g' .. "\<CR>")
  var result = t.Result(rec)
  assert_equal('completed', result.status)
  assert_equal([root .. '/docs/a.txt', root .. '/docs/b.txt'], result.paths)
enddef

def g:Test_tab_marks_only_where_several_may_be_chosen()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, 'a.txt')
  t.Keys(p, "\<Tab>")
  assert_equal('this dialog takes one file', t.Status(p))
  assert_match('^  a.txt', t.Lines(p)[1])
  assert_notmatch('<Tab>', t.KeysLineOf(p))
  t.Keys(p, "\<Esc>")
  assert_equal({status: 'cancelled', reason: 'user'}, t.Result(rec))
enddef

def g:Test_filter_as_you_type_then_choose()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.Keys(p, '/')
  assert_equal('/', t.Status(p))
  t.Keys(p, 'B.T')
  assert_equal(1, len(t.Lines(p)))
  assert_match('^  b.txt', t.Lines(p)[0])
  assert_equal('/B.T', t.Status(p))
  assert_match('/B.T $', popup_getoptions(p.winid).title)
  t.Keys(p, "\<C-U>*.txt")
  assert_equal(['a.txt', 'b.txt'], t.Lines(p)->mapnew((_, l) => matchstr(l, '\S\+')))
  t.Keys(p, "\<CR>j\<CR>")
  assert_equal([root .. '/docs/b.txt'], t.Result(rec).paths)
enddef

def g:Test_folders_parent_home_and_hidden_files()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.Keys(p, "\<CR>")
  assert_equal('file://' .. root .. '/docs/sub', p.dir)
  assert_equal(['  (empty folder)'], t.Lines(p))
  t.Keys(p, '-')
  assert_equal('file://' .. root .. '/docs', p.dir)
  assert_equal(1, line('.', p.winid), 'the cursor is on the folder it came from')
  t.Keys(p, '.')
  assert_match('^  \.hidden\.txt', t.Lines(p)[1])
  t.Keys(p, '.')
  assert_match('^  a\.txt', t.Lines(p)[1])
  t.Keys(p, '~')
  assert_equal(wharf#url#FromPath(resolve($HOME)), p.dir)
  t.Keys(p, '?')
  assert_match('<Tab>', t.Lines(p)[1])
  t.Keys(p, 'x')
  assert_equal(wharf#url#FromPath(resolve($HOME)), p.dir)
  wharf#cancel(p.d.handle)
  assert_equal({status: 'cancelled', reason: 'client'}, t.Result(rec))
  assert_true(p.closed, 'the app cancelling takes the popup down')
enddef

def g:Test_a_name_that_is_not_utf8_is_chosen_byte_for_byte()
  var root = t.Fixture()
  var odd = root .. "/docs/x\xffy.txt"
  writefile(['odd'], odd)
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, "x\uFFFDy.txt")
  t.Keys(p, "\<CR>")
  var result = t.Result(rec)
  assert_equal('file://' .. wharf#url#FromPath(root)[7 : ] .. '/docs/x%FFy.txt', result.urls[0])
  assert_equal(odd, result.paths[0])
  assert_equal(strlen(odd), strlen(result.paths[0]))
  assert_equal(strlen(root .. "/docs/x"), stridx(result.paths[0], "\xff"), "the byte 0xFF, not U+FFFD")
  assert_equal(['odd'], readfile(result.paths[0]))
enddef

def g:Test_wharf_open_edits_the_chosen_files()
  var root = t.Fixture()
  t.Use(root, 'vim')
  execute 'cd ' .. fnameescape(root .. '/docs')
  WharfOpen txt
  var p = t.Picker()
  assert_match(' Open · Plain text · ', popup_getoptions(p.winid).title)
  t.CursorTo(p, 'a.txt')
  t.Keys(p, "\<Tab>\<Tab>g\<CR>")
  t.WaitFor(() => bufname() =~ 'a\.txt$', 'a.txt to be edited')
  assert_equal(root .. '/docs/a.txt', fnamemodify(bufname(), ':p'))
  assert_equal(['alpha'], getline(1, '$'))
  assert_true(buflisted(root .. '/docs/b.txt'))
  cd -
  bwipe! a.txt
  execute 'bwipe! ' .. fnameescape(root .. '/docs/b.txt')
enddef

def g:Test_user_events_when_the_picker_shows_and_the_dialog_ends()
  var root = t.Fixture()
  t.Use(root, 'vim')
  g:events = []
  augroup wharf_test_events
    autocmd!
    autocmd User WharfPickerShown g:events->add(['shown', g:wharf_picker_winid])
    autocmd User WharfDone g:events->add(['done', g:wharf_last_result.status])
  augroup END
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.Keys(p, 'q')
  t.Result(rec)
  augroup wharf_test_events
    autocmd!
  augroup END
  assert_equal([['shown', p.winid], ['done', 'cancelled']], g:events)
enddef

def g:Test_a_big_folder_comes_in_pages_and_scrolls()
  var root = t.Fixture()
  for i in range(1, 450)
    writefile([], printf('%s/docs/sub/f%03d.txt', root, i))
  endfor
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs/sub'}, rec.Callback)
  var p = t.Picker()
  assert_equal(200, len(wharf#picker#Entries(p)), 'the first page')
  assert_equal(p.height, len(t.Lines(p)), 'the popup holds the rows that fit')
  t.Keys(p, 'G')
  assert_equal(400, len(wharf#picker#Entries(p)), 'G at the end of the first page fetches the second')
  t.Keys(p, 'G')
  assert_equal(450, len(wharf#picker#Entries(p)))
  assert_equal(v:null, p.next_cursor)
  t.Keys(p, 'G')
  assert_match('^  f450\.txt', t.Lines(p)[-1])
  assert_match(' · 450/450 $', popup_getoptions(p.winid).title)
  t.Keys(p, 'k')
  assert_match('^  f449\.txt', getbufline(winbufnr(p.winid), line('.', p.winid))[0])
  t.Keys(p, "\<C-U>\<CR>")
  var result = t.Result(rec)
  assert_equal([printf('%s/docs/sub/f%03d.txt', root, 449 - p.height / 2)], result.paths)
enddef

def g:Test_the_picker_follows_the_screen_size()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  var before = popup_getpos(p.winid).core_width
  set columns=100
  doautocmd VimResized
  assert_equal(60, popup_getpos(p.winid).core_width)
  assert_notequal(before, popup_getpos(p.winid).core_width)
  set columns=160
  doautocmd VimResized
  t.Keys(p, 'q')
  t.Result(rec)
enddef

def g:Test_a_folder_picker_chooses_the_folder_shown()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {directory: true, default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  assert_equal('» Choose this folder', t.Lines(p)[0])
  assert_match(' Choose Folder · Folders · ', popup_getoptions(p.winid).title)
  t.Keys(p, "\<CR>")
  assert_equal('file://' .. root .. '/docs/sub', p.dir, '<CR> on a folder opens it')
  t.Keys(p, "g\<CR>")
  assert_equal([root .. '/docs/sub'], t.Result(rec).paths)
enddef

def g:Test_the_dialog_timing_out_takes_the_picker_down()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs', timeout_ms: 500}, rec.Callback)
  var p = t.Picker()
  assert_equal({status: 'cancelled', reason: 'timeout'}, t.Result(rec))
  assert_true(p.closed)
enddef

def g:Test_a_popup_closed_from_outside_dismisses_the_dialog()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  popup_close(p.winid)
  assert_equal({status: 'cancelled', reason: 'user'}, t.Result(rec))
  assert_true(p.closed)
enddef

def g:Test_an_error_in_the_picker_fails_the_dialog_and_leaves_nothing_open()
  var root = t.Fixture()
  t.Use(root, 'vim')
  g:wharf_window = {width: 'wide'}
  var rec = t.Recorder()
  try
    wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
    var result = t.Result(rec)
    assert_equal('failed', result.status)
    assert_equal(-32040, result.error.code)
    assert_match('wide', result.error.message)
  finally
    unlet g:wharf_window
  endtry
enddef

def g:Test_a_bad_page_size_fails_the_dialog()
  var root = t.Fixture()
  t.Use(root, 'vim')
  g:wharf_page_size = '50'
  var rec = t.Recorder()
  try
    wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
    var result = t.Result(rec)
    assert_equal(-32040, result.error.code)
    assert_match('g:wharf_page_size must be a whole number', result.error.message)
  finally
    unlet g:wharf_page_size
  endtry
enddef
