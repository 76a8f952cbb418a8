vim9script
# The shared conformance transcripts (protocol/conformance/) replayed through Vim's lsp
# channel, as the Swift suite and the Python and Node clients replay them through theirs.

import './conformance.vim' as c

const FOLDER = expand('<script>:p:h') .. '/../../../protocol/conformance'

# What Vim's channel cannot send, and so which transcripts do not apply, with the test that
# tells that a transcript still needs it.
const NOT_APPLYING = {
  'batches.json': 'batches: ch_sendexpr() sends one message, a Dict',
  'before-initialize.json': 'a string id: Vim sends only numbers as ids (E475)',
  'invalid-messages.json': 'invalid JSON and JSON that is not a request: Vim encodes every message itself',
  'ndjson.json': 'NDJSON framing: Vim''s lsp mode writes Content-Length headers',
}

def Needs(transcript: dict<any>): list<string>
  var needs: list<string> = []
  if get(get(transcript, 'server', {}), 'framing', 'lsp') != 'lsp'
    needs->add('ndjson')
  endif
  for step in transcript.steps
    if has_key(step, 'sendRaw') || has_key(step, 'sendBody')
      needs->add('raw')
    elseif has_key(step, 'send')
      var m = step.send
      if type(m) != v:t_dict
        needs->add(type(m) == v:t_list ? 'batch' : 'raw')
      elseif has_key(m, 'id') && type(m.id) != v:t_number && !(type(m.id) == v:t_string && m.id =~ '^\$')
        needs->add('id')
      elseif has_key(m, 'jsonrpc') && m.jsonrpc != '2.0' || type(get(m, 'method', '')) != v:t_string
        needs->add('raw')
      endif
    endif
  endfor
  return uniq(sort(needs))
enddef

def Transcripts(): list<string>
  return glob(FOLDER .. '/*.json', 0, 1)->map((_, f) => fnamemodify(f, ':t'))
enddef

def g:Test_conformance_which_transcripts_apply()
  var names = Transcripts()
  assert_true(len(names) >= 20, 'the transcripts are there')
  for name in names
    var needs = Needs(json_decode(join(readfile(FOLDER .. '/' .. name), "\n")))
    if has_key(NOT_APPLYING, name)
      assert_notequal([], needs, name .. ' is listed as not applying, but Vim can send all of it now')
    else
      assert_equal([], needs, name .. ' needs what Vim cannot send: list it in NOT_APPLYING')
    endif
  endfor
  for frontend in ['importer-frontend.json', 'exporter-frontend.json', 'exporter-lazy.json']
    assert_false(has_key(NOT_APPLYING, frontend))
  endfor
enddef

def g:Test_conformance_matcher()
  var bound: dict<any> = {}
  assert_true(c.Matches({id: 1, result: {dialogId: 'd1'}}, {result: {dialogId: '$d'}}, bound))
  assert_equal({d: 'd1'}, bound)
  assert_false(c.Matches({params: {dialogId: 'd2'}}, {params: {dialogId: '$d'}}, bound))
  assert_true(c.Matches([3, 1, 2], {'$unordered': [1, 2, 3]}, bound))
  assert_false(c.Matches({a: 1}, {a: {'$absent': true}}, bound))
  assert_false(c.Matches({}, {a: '*'}, bound))
  var response = {id: 1, result: {}}
  var first = {method: 'dialog/presentationChanged'}
  var last = {method: 'dialog/completed'}
  assert_true(c.Assign([first, response, last], [response, first, last], {}, true))
  assert_false(c.Assign([last, response, first], [response, first, last], {}, true))
enddef

for name in Transcripts()
  if !has_key(NOT_APPLYING, name)
    var function = 'Test_conformance_' .. substitute(fnamemodify(name, ':r'), '\W', '_', 'g')
    execute printf("function g:%s()\n  call g:ReplayTranscript(%s)\nendfunction", function, string(name))
  endif
endfor

def g:ReplayTranscript(name: string)
  try
    c.Run($WHARF, FOLDER .. '/' .. name)
  catch
    assert_report(name .. ': ' .. v:exception)
  endtry
enddef
