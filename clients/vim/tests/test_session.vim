vim9script
# The session: wharf dying mid-dialog, missing, stopped; bad options; the channel's ids.

import './helpers.vim' as t

g:Cleanup = t.Cleanup

def g:Test_wharf_dying_mid_dialog_fails_it()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['public.plain-text'], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  var pid = wharf#status().pid
  system('kill -KILL ' .. pid)
  var result = t.Result(rec)
  assert_equal('failed', result.status)
  assert_equal(-32603, result.error.code)
  assert_match('^wharf exited', result.error.message)
  assert_true(p.closed, 'the popup goes with the dialog')
  # The next dialog starts a new wharf.
  writefile([json_encode([{choose: [root .. '/docs/b.txt']}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var again = t.Recorder()
  wharf#import([], {}, again.Callback)
  assert_equal([root .. '/docs/b.txt'], t.Result(again).paths)
  assert_notequal(pid, wharf#status().pid)
enddef

def g:Test_a_missing_wharf_fails_the_dialog()
  var root = t.Fixture()
  g:wharf_cmd = [root .. '/no-such-wharf']
  var rec = t.Recorder()
  wharf#import([], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal('failed', result.status)
  assert_equal(-32603, result.error.code)
  assert_match('no-such-wharf is not an executable', result.error.message)
enddef

def g:Test_wharf_stop_ends_open_dialogs_as_disconnected()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  WharfStop
  assert_equal({status: 'cancelled', reason: 'disconnected'}, t.Result(rec))
  assert_true(p.closed)
  assert_equal(0, wharf#status().exit_status, 'shutdown, then exit')
enddef

def g:Test_bad_options_fail_the_dialog_without_wharf()
  g:wharf_cmd = ['/no-such-wharf']
  var rec = t.Recorder()
  wharf#import([], {multiple: 'yes'}, rec.Callback)
  assert_equal([], rec.calls, 'the callback is called later, not from inside wharf#import')
  var result = t.Result(rec)
  assert_equal({status: 'failed', error: {code: -32602, message: 'multiple: expected a boolean, got a string'}}, result)
  var other = t.Recorder()
  wharf#export([{filename: 'x'}], {}, other.Callback)
  assert_equal('documents[0]: give text, bytes, path or snapshot', t.Result(other).error.message)
  var third = t.Recorder()
  wharf#import([], {defaultDirectory: '/'}, third.Callback)
  assert_match('^defaultDirectory: not an option', t.Result(third).error.message)
enddef

def g:Test_wharf_refusing_a_dialog_fails_it()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import(['no.such-type'], {}, rec.Callback)
  var result = t.Result(rec)
  assert_equal('failed', result.status)
  assert_equal(-32602, result.error.code)
  assert_match('no.such-type', result.error.message)
enddef

def g:Test_cancel_before_wharf_answered_present()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  var handle = wharf#import([], {}, rec.Callback)
  assert_true(wharf#cancel(handle))
  assert_equal({status: 'cancelled', reason: 'client'}, t.Result(rec))
  assert_false(wharf#cancel(handle), 'an ended dialog is not open')
enddef

# Vim's channel gives a request from wharf whose id is that of one of ours still waiting to
# that request's callback; the client must still answer it and route our answer right.
def g:Test_a_server_request_with_the_id_of_a_waiting_request()
  var root = t.Fixture()
  var log = root .. '/fake.log'
  g:wharf_cmd = ['python3', expand('<script>:p:h') .. '/fake_wharf.py', log]
  g:wharf_presenter = 'vim'
  var snapshots: list<string> = []
  var rec = t.Recorder()
  wharf#export([{snapshot: (ct) => {
    snapshots->add(ct)
    return 'lazy ' .. len(snapshots)
  }}], {}, rec.Callback)
  t.WaitFor(() => wharf#status().state == 'ready' && !empty(wharf#dialog#Open()) && wharf#dialog#Open()[0].id == 'd1', 'the dialog')
  var answers: list<any> = []
  wharf#request('ping', {}, (err, result) => answers->add([err, result]))
  t.WaitFor(() => !empty(answers), 'the answer to ping')
  t.WaitFor(() => len(readfile(log)) >= 6, 'the answers to both snapshots')
  assert_equal([[v:null, {pong: true}]], answers)
  assert_equal(['public.plain-text', 'public.plain-text'], snapshots)
  var messages = readfile(log)->mapnew((_, l) => json_decode(l))
  var ping = messages->copy()->filter((_, m) => get(m, 'method', '') == 'ping')[0]
  var sent = messages->copy()->filter((_, m) => !has_key(m, 'method'))
  assert_equal([{jsonrpc: '2.0', id: 900, result: {text: 'lazy 1'}}, {jsonrpc: '2.0', id: ping.id, result: {text: 'lazy 2'}}], sent)
  wharf#cancel(wharf#dialog#Open()[0].handle)
  wharf#rpc#Stop()
  assert_equal('cancelled', t.Result(rec).status)
enddef

# g:wharf_presenter decides what initialize says: 'auto' draws in Vim only when no desktop
# dialog is usable, 'vim' always, 'native' never (and asks wharf for the desktop's).
def g:Test_the_presenter_option_sets_the_capabilities()
  var root = t.Fixture()
  var log = root .. '/wharf.log'
  g:wharf_log_file = log
  g:wharf_trace = true
  var sent: dict<any> = {}
  for presenter in ['auto', 'vim', 'native']
    t.Use(root, presenter)
    var answers: list<any> = []
    wharf#request('ping', {}, (err, result) => answers->add(result))
    t.WaitFor(() => !empty(answers), 'ping')
    sent[presenter] = {
      capabilities: readfile(log)->filter((_, l) => l =~ '-> initialize ')->map((_, l) => json_decode(matchstr(l, '-> initialize \zs.*')).capabilities)[-1],
      command: wharf#status().command[3 : ],
    }
    wharf#rpc#Stop()
  endfor
  unlet g:wharf_log_file g:wharf_trace
  assert_equal({capabilities: {presentsDialogs: true, prefersDesktopDialogs: true}, command: []}, sent.auto)
  assert_equal({capabilities: {presentsDialogs: true}, command: []}, sent.vim)
  assert_equal({capabilities: {presentsDialogs: false}, command: ['--presenter', 'auto']}, sent.native)
enddef

# A wharf that cannot answer (stopped) is killed by :WharfStop, and its dialogs still end once.
def g:Test_wharf_stop_ends_the_dialogs_of_a_wharf_that_does_not_answer()
  var root = t.Fixture()
  t.Use(root, 'vim')
  var rec = t.Recorder()
  wharf#import([], {default_directory: root .. '/docs'}, rec.Callback)
  var p = t.Picker()
  var pid = wharf#status().pid
  system('kill -STOP ' .. pid)
  WharfStop
  assert_equal({status: 'cancelled', reason: 'disconnected'}, t.Result(rec))
  assert_true(p.closed)
  t.WaitFor(() => system('ps -o stat= -p ' .. pid) !~ '\S', 'the stopped wharf to be gone')
enddef

def g:Test_wharf_access_lists_and_revokes_a_grant()
  var root = t.Fixture()
  writefile([json_encode([{choose: [root .. '/docs/a.txt']}])], root .. '/script.json')
  t.Use(root, 'native', ['--presenter', 'script:' .. root .. '/script.json'])
  var rec = t.Recorder()
  wharf#import([], {}, rec.Callback)
  assert_equal('completed', t.Result(rec).status)
  WharfAccess
  var winid = wharf#access#Winid()
  t.WaitFor(() => getbufline(winbufnr(winid), 1)[0] =~ 'a\.txt', 'the grant listed')
  assert_match('^grant \+r  ' .. root .. '/docs/a\.txt', getbufline(winbufnr(winid), 1)[0])
  feedkeys('x', 'xt')
  t.WaitFor(() => getbufline(winbufnr(winid), 1)[0] =~ 'no grants', 'the grant revoked')
  var left: list<any> = []
  wharf#list_access((err, entries) => left->add(entries))
  t.WaitFor(() => !empty(left), 'listAccess')
  assert_equal([[]], left)
  feedkeys('q', 'xt')
  assert_equal({}, popup_getpos(winid))
enddef
