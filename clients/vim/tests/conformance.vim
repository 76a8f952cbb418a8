vim9script
# Replays a transcript of protocol/conformance/ (see its README) through Vim's own transport:
# a job whose channel is in "lsp" mode, messages sent with ch_sendexpr() (Vim frames and
# encodes them) and received through the channel's callback (Vim reads and decodes them).
# What Vim's channel cannot send (batches, string ids, raw bytes, NDJSON) is what
# test_conformance.vim lists as not applying.

const TIMEOUT_MS = 10000
const MISSING = {'conformance missing': true}

var inbox: list<any> = []
var pending: list<any> = []
var captures: dict<any> = {}
var job: job
var closed = false
var stderr: list<string> = []
var markers = 0

def IsCapture(value: any): bool
  return type(value) == v:t_string && value =~# '^\$[A-Za-z_][A-Za-z0-9_]*$'
enddef

def SubstitutePaths(value: any, fixtures: string): any
  if type(value) == v:t_string
    return value->substitute('\$fixturesURL', 'file://' .. escape(fixtures, '\&'), 'g')->substitute('\$fixtures', escape(fixtures, '\&'), 'g')
  elseif type(value) == v:t_list
    return value->mapnew((_, v) => SubstitutePaths(v, fixtures))
  elseif type(value) == v:t_dict
    return value->mapnew((_, v) => SubstitutePaths(v, fixtures))
  endif
  return value
enddef

def SubstituteCaptures(value: any): any
  if IsCapture(value)
    if !has_key(captures, value[1 :])
      throw 'the transcript uses ' .. value .. ' before binding it'
    endif
    return captures[value[1 :]]
  elseif type(value) == v:t_list
    return value->mapnew((_, v) => SubstituteCaptures(v))
  elseif type(value) == v:t_dict
    return value->mapnew((_, v) => SubstituteCaptures(v))
  endif
  return value
enddef

def IsNumber(v: any): bool
  return type(v) == v:t_number || type(v) == v:t_float
enddef

def Equal(a: any, b: any): bool
  if IsNumber(a) && IsNumber(b)
    return a == b
  endif
  if type(a) != type(b)
    return false
  endif
  if type(a) == v:t_list
    if len(a) != len(b)
      return false
    endif
    for i in range(len(a))
      if !Equal(a[i], b[i])
        return false
      endif
    endfor
    return true
  elseif type(a) == v:t_dict
    if sort(keys(a)) != sort(keys(b))
      return false
    endif
    for k in keys(a)
      if !Equal(a[k], b[k])
        return false
      endif
    endfor
    return true
  endif
  return a == b
enddef

def HasType(value: any, name: string): bool
  var t = type(value)
  if name == 'null'
    return t == v:t_none
  elseif name == 'boolean'
    return t == v:t_bool
  elseif name == 'string'
    return t == v:t_string
  elseif name == 'array'
    return t == v:t_list
  elseif name == 'object'
    return t == v:t_dict
  elseif name == 'integer'
    return t == v:t_number || (t == v:t_float && value == floor(value))
  elseif name == 'number'
    return IsNumber(value)
  endif
  return false
enddef

# Whether `value` matches `pattern`; new captures are bound (in `bound`) only when it does.
export def Matches(value: any, pattern: any, bound: dict<any>): bool
  var trial = copy(bound)
  if Match(value, pattern, trial)
    extend(bound, trial, 'force')
    return true
  endif
  return false
enddef

def Match(value: any, pattern: any, bound: dict<any>): bool
  var missing = type(value) == v:t_dict && value is MISSING
  if type(pattern) == v:t_string && pattern ==# '*'
    return !missing
  endif
  if IsCapture(pattern)
    if missing
      return false
    endif
    var name = pattern[1 :]
    if has_key(bound, name)
      return Equal(bound[name], value)
    endif
    bound[name] = value
    return true
  endif
  if type(pattern) == v:t_dict
    if len(pattern) == 1 && keys(pattern)[0] =~ '^\$'
      var op = keys(pattern)[0]
      return !missing && Operator(op, pattern[op], value, bound)
    endif
    if type(value) != v:t_dict || missing
      return false
    endif
    for [key, member] in items(pattern)
      if type(member) == v:t_dict && Equal(member, {'$absent': true})
        if has_key(value, key)
          return false
        endif
        continue
      endif
      if !Match(get(value, key, MISSING), member, bound)
        return false
      endif
    endfor
    return true
  endif
  if type(pattern) == v:t_list
    if type(value) != v:t_list || len(value) != len(pattern)
      return false
    endif
    for i in range(len(pattern))
      if !Match(value[i], pattern[i], bound)
        return false
      endif
    endfor
    return true
  endif
  return !missing && Equal(value, pattern)
enddef

def Operator(name: string, argument: any, value: any, bound: dict<any>): bool
  if name == '$type'
    return HasType(value, argument)
  elseif name == '$contains'
    return type(value) == v:t_string && stridx(value, argument) >= 0
  elseif name == '$unordered'
    return type(value) == v:t_list && len(value) == len(argument) && Assign(value, argument, bound, false)
  endif
  return false
enddef

# One to one; with `keep_method_order` the patterns naming a method match in order.
export def Assign(values: list<any>, patterns: list<any>, bound: dict<any>, keep_method_order: bool): bool
  if len(values) != len(patterns)
    return false
  endif
  var used = repeat([false], len(values))
  var found = Step(values, patterns, used, 0, -1, copy(bound), keep_method_order)
  if type(found) != v:t_dict
    return false
  endif
  extend(bound, found, 'force')
  return true
enddef

def Step(values: list<any>, patterns: list<any>, used: list<bool>, index: number, last_ordered: number, bound: dict<any>, keep: bool): any
  if index == len(patterns)
    return bound
  endif
  var pattern = patterns[index]
  var ordered = keep && type(pattern) == v:t_dict && has_key(pattern, 'method')
  for candidate in range(ordered ? last_ordered + 1 : 0, len(values) - 1)
    if used[candidate]
      continue
    endif
    var trial = copy(bound)
    if !Match(values[candidate], pattern, trial)
      continue
    endif
    used[candidate] = true
    var found = Step(values, patterns, used, index + 1, ordered ? candidate : last_ordered, trial, keep)
    if type(found) == v:t_dict
      return found
    endif
    used[candidate] = false
  endfor
  return v:null
enddef

def MakeFixtures(folder: string, fixtures: dict<any>)
  for [relative, given] in items(fixtures)
    var path = folder .. '/' .. relative
    mkdir(fnamemodify(path, ':h'), 'p')
    var content = SubstitutePaths(given, folder)
    if type(content) == v:t_string
      writefile(split(content, "\n", true), path, 'b')
    elseif has_key(content, 'json')
      writefile([json_encode(content.json)], path, 'b')
    elseif has_key(content, 'base64')
      system('base64 -d > ' .. shellescape(path), content.base64)
    elseif has_key(content, 'size')
      system('truncate -s ' .. content.size .. ' ' .. shellescape(path))
    elseif get(content, 'directory', false) == true
      mkdir(path, 'p')
    elseif has_key(content, 'symlink')
      system('ln -s ' .. shellescape(content.symlink) .. ' ' .. shellescape(path))
    else
      throw 'fixture ' .. relative .. ': unknown content ' .. string(content)
    endif
  endfor
enddef

def Next(): any
  if !empty(pending)
    return remove(pending, 0)
  endif
  var start = reltime()
  while empty(inbox)
    if closed || reltimefloat(reltime(start)) * 1000 > TIMEOUT_MS
      return MISSING
    endif
    sleep 5m
  endwhile
  return remove(inbox, 0)
enddef

def IsMissing(m: any): bool
  return type(m) == v:t_dict && m is MISSING
enddef

def Send(message: any)
  ch_sendexpr(job_getchannel(job), message)
enddef

# Runs the transcript in `file`; throws a description of the first step that fails.
export def Run(wharf: string, file: string)
  var transcript = json_decode(join(readfile(file), "\n"))
  var root = resolve(tempname())
  var fixtures = root .. '/fixtures'
  mkdir(fixtures, 'p')
  mkdir(root .. '/state', 'p')
  inbox = []
  pending = []
  captures = {}
  closed = false
  stderr = []
  try
    MakeFixtures(fixtures, get(transcript, 'fixtures', {}))
    var server = get(transcript, 'server', {})
    # env's options (-u NAME) before its assignments.
    var unset: list<string> = []
    var set = ['XDG_STATE_HOME=' .. root .. '/state']
    for [name, value] in items(get(server, 'environment', {}))
      if value == null
        unset += ['-u', name]
      else
        set->add(name .. '=' .. value)
      endif
    endfor
    var command = ['env'] + unset + set + [wharf] + get(server, 'arguments', [])->mapnew((_, a) => SubstitutePaths(a, fixtures))
    job = job_start(command, {in_mode: 'lsp', out_mode: 'lsp', err_mode: 'nl',
      callback: (_, msg) => add(inbox, msg),
      err_cb: (_, line) => add(stderr, line),
      close_cb: (_) => {
        closed = true
      }})
    var number = 0
    for step in transcript.steps
      number += 1
      try
        Perform(SubstitutePaths(step, fixtures))
      catch
        throw printf('step %d%s: %s', number, has_key(step, 'comment') ? ' (' .. step.comment .. ')' : '', v:exception)
      endtry
    endfor
  finally
    if job_status(job) == 'run'
      job_stop(job, 'kill')
    endif
    delete(root, 'rf')
  endtry
enddef

def Perform(step: dict<any>)
  if has_key(step, 'send')
    Send(SubstituteCaptures(step.send))
  elseif has_key(step, 'expect')
    var message = Next()
    if IsMissing(message)
      throw 'expected ' .. json_encode(step.expect) .. ', but nothing came'
    endif
    if !Matches(message, step.expect, captures)
      throw 'expected ' .. json_encode(step.expect) .. ' got ' .. json_encode(message)
    endif
  elseif has_key(step, 'expectAll')
    var messages: list<any> = []
    for _ in step.expectAll
      var message = Next()
      if IsMissing(message)
        throw 'expected ' .. len(step.expectAll) .. ' messages, got only ' .. json_encode(messages)
      endif
      messages->add(message)
    endfor
    if !Assign(messages, step.expectAll, captures, true)
      throw 'expected ' .. json_encode(step.expectAll) .. ' (responses anywhere, the rest in order) got ' .. json_encode(messages)
    endif
  elseif has_key(step, 'expectSome')
    var count = 0
    while true
      var message = Next()
      if IsMissing(message)
        break
      endif
      if !Matches(message, step.expectSome, captures)
        insert(pending, message)
        break
      endif
      count += 1
    endwhile
    if count == 0
      throw 'expected one or more messages matching ' .. json_encode(step.expectSome)
    endif
  elseif has_key(step, 'expectNone')
    # The marker is a number: Vim's channel sends no other kind of id.
    markers += 1
    var marker = 900000000 + markers
    Send({jsonrpc: '2.0', id: marker, method: 'ping'})
    while true
      var message = Next()
      if IsMissing(message)
        throw 'no answer to the marker ping ' .. marker
      endif
      if type(message) == v:t_dict && get(message, 'id', v:null) == marker && !has_key(message, 'method')
        break
      endif
      pending->add(message)
    endwhile
    for message in pending
      if step.expectNone == null || Matches(message, step.expectNone, copy(captures))
        throw 'expected no message' .. (step.expectNone == null ? '' : ' matching ' .. json_encode(step.expectNone)) .. ', got ' .. json_encode(message)
      endif
    endfor
  elseif has_key(step, 'closeInput')
    ch_close_in(job_getchannel(job))
  elseif has_key(step, 'signal')
    job_stop(job, step.signal == 'TERM' ? 'term' : 'int')
  elseif has_key(step, 'exit')
    var start = reltime()
    while (job_status(job) == 'run' || !closed) && reltimefloat(reltime(start)) * 1000 < TIMEOUT_MS
      sleep 5m
    endwhile
    if job_status(job) == 'run'
      throw 'wharf did not exit'
    endif
    if !closed
      throw 'wharf''s output stayed open after it exited'
    endif
    var status = job_info(job).exitval
    if status != step.exit
      throw printf('wharf exited with status %d, expected %d; stderr: %s', status, step.exit, join(stderr, ' | '))
    endif
    pending += inbox
    inbox = []
    if !empty(pending)
      throw 'wharf sent messages no step expected: ' .. join(pending->mapnew((_, m) => json_encode(m)), ' ')
    endif
  else
    throw 'unknown step ' .. json_encode(step)
  endif
enddef
