vim9script
# Exporters: lazy documents answered for exporter/snapshot, the name prompt, "Replace?", and
# :WharfSaveAs.

import './helpers.vim' as t

g:Cleanup = t.Cleanup

def g:Test_export_a_lazy_document_through_the_picker()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  var asked: list<string> = []
  var Snapshot = (content_type) => {
    asked->add(content_type)
    return "Hello\nworld\n"
  }
  wharf#export([{filename: 'report', snapshot: Snapshot}], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  assert_equal('» Save here as report.txt…', t.Lines(p)[0])
  assert_match(' Save · Plain text · ', popup_getoptions(p.winid).title)
  t.Keys(p, "g\<CR>")
  assert_equal('Save as: report.txt', t.Status(p), 'the name prompt holds the suggested name')
  assert_equal([], asked, 'no snapshot before the place is chosen')
  t.Keys(p, "\<C-W>\<BS>notes.txt\<CR>")
  var result = t.Result(rec)
  assert_equal('completed', result.status)
  assert_equal([root .. '/docs/notes.txt'], result.paths)
  assert_equal(['public.plain-text'], result.content_types)
  assert_equal(['public.plain-text'], asked)
  assert_equal("Hello\nworld\n", t.Read(root .. '/docs/notes.txt'))
enddef

def g:Test_saving_over_a_file_asks_replace()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#export([{filename: 'a.txt', text: 'new'}], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, 'b.txt')
  t.Keys(p, "\<CR>")
  assert_equal('Save as: b.txt', t.Status(p), 'the file under the cursor prefills the name')
  t.Keys(p, "\<CR>")
  assert_equal('b.txt already exists. Replace? (y/n)', t.Status(p))
  t.Keys(p, 'n')
  assert_false(p.closed)
  assert_equal(['beta'], readfile(root .. '/docs/b.txt'))
  t.Keys(p, "\<CR>\<CR>")
  t.Keys(p, 'y')
  var result = t.Result(rec)
  assert_equal([root .. '/docs/b.txt'], result.paths)
  assert_equal('new', t.Read(root .. '/docs/b.txt'))
enddef

def g:Test_a_snapshot_of_bytes_that_are_not_utf8_through_the_script_presenter()
  var root = t.Fixture()
  writefile([json_encode([{save: {path: root .. '/out.bin'}}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var rec = t.Recorder()
  var bytes = "\xff\xfe\x00\x01"
  wharf#export([{types: ['public.data'], snapshot: (_) => 0zFFFE0001}], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal('completed', result.status)
  assert_equal(0zFFFE0001, readblob(root .. '/out.bin'))
enddef

def g:Test_a_failing_snapshot_fails_the_dialog()
  var root = t.Fixture()
  writefile([json_encode([{save: {path: root .. '/out.txt'}}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var rec = t.Recorder()
  var Snapshot = (_) => {
    throw 'the disk is on fire'
    return ''
  }
  wharf#export([{snapshot: Snapshot}], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal('failed', result.status)
  assert_equal(-32041, result.error.code)
  assert_match('the disk is on fire', result.error.message)
  assert_false(filereadable(root .. '/out.txt'))
enddef

def g:Test_two_types_are_offered_and_the_name_follows_the_type()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  var asked: list<string> = []
  var Snapshot = (content_type) => {
    asked->add(content_type)
    return content_type == 'public.html' ? '<p>Hi</p>' : 'Hi'
  }
  wharf#export([{filename: 'page', types: ['public.plain-text', 'public.html'], snapshot: Snapshot}],
    {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.Keys(p, "g\<CR>")
  assert_match('^Save as type: 1 Plain text (.txt) · 2 HTML', t.Status(p))
  t.Keys(p, '2')
  assert_equal('Save as: page.html', t.Status(p))
  t.Keys(p, "\<CR>")
  var result = t.Result(rec)
  assert_equal([root .. '/docs/page.html'], result.paths)
  assert_equal(['public.html'], asked)
  assert_equal('<p>Hi</p>', t.Read(root .. '/docs/page.html'))
enddef

def g:Test_wharf_save_as_writes_the_buffer_and_edits_the_new_file()
  var root = t.Fixture()
  t.Use(root, 'vim')
  execute 'edit ' .. fnameescape(root .. '/docs/a.txt')
  setline(1, ['one', 'two'])
  setlocal fileformat=dos noendofline nofixendofline
  WharfSaveAs
  var p = t.Picker()
  assert_equal('file://' .. root .. '/docs', p.dir)
  t.Keys(p, "g\<CR>\<C-U>copy.txt\<CR>")
  t.WaitFor(() => p.closed && bufname() =~ 'copy\.txt$', 'the buffer to be renamed')
  assert_equal("one\r\ntwo", t.Read(root .. '/docs/copy.txt'), 'the bytes :write would write')
  assert_equal(root .. '/docs/copy.txt', fnamemodify(bufname(), ':p'))
  assert_equal(root .. '/docs/a.txt', fnamemodify(bufname('#'), ':p'), 'the old name is the alternate file')
  assert_false(&modified)
  assert_equal(['alpha'], readfile(root .. '/docs/a.txt'))
  setline(1, 'ONE')
  write
  assert_equal("ONE\r\ntwo", t.Read(root .. '/docs/copy.txt'), 'a later :write needs no !')
  bwipe!
  silent! bwipe! a.txt
enddef

def g:Test_wharf_save_as_names_a_new_buffer()
  var root = t.Fixture()
  t.Use(root, 'vim')
  execute 'cd ' .. fnameescape(root .. '/docs')
  enew
  setline(1, 'fresh')
  WharfSaveAs
  var p = t.Picker()
  t.Keys(p, "g\<CR>")
  assert_equal('Save as: Untitled.txt', t.Status(p))
  t.Keys(p, "\<CR>")
  t.WaitFor(() => p.closed && bufname() != '', 'the buffer to be named')
  assert_equal(root .. '/docs/Untitled.txt', fnamemodify(bufname(), ':p'))
  assert_equal("fresh\n", t.Read(root .. '/docs/Untitled.txt'))
  var tmp = fnamemodify(tempname(), ':h')
  assert_equal([], getbufinfo()->filter((_, b) => stridx(b.name, tmp) == 0 && stridx(b.name, root) != 0)->mapnew((_, b) => b.name),
    'the temporary file the snapshot wrote is no buffer')
  cd -
  bwipe!
enddef

def g:Test_saving_over_a_name_that_is_not_utf8_keeps_its_bytes()
  var root = t.Fixture()
  var odd = root .. "/docs/r\xe9sum\xe9.txt"
  writefile(['old'], odd)
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#export([{filename: 'cv', text: "new\n"}], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  t.CursorTo(p, "r\uFFFDsum\uFFFD.txt")
  t.Keys(p, "\<CR>")
  assert_equal('Save as: ' .. strtrans("r\xe9sum\xe9.txt"), t.Status(p), 'the name, byte for byte')
  t.Keys(p, "\<CR>")
  t.Keys(p, 'y')
  var result = t.Result(rec)
  assert_equal([odd], result.paths)
  assert_equal("new\n", t.Read(odd))
  assert_equal(['.hidden.txt', 'a.txt', 'b.txt', 'c.png', "r\xe9sum\xe9.txt", 'sub'], readdir(root .. '/docs')->sort())
enddef
