vim9script
# The one `wharf` of this Vim: started on first use, spoken to over a channel in "lsp" mode
# (Content-Length framing, JSON encoded and decoded by Vim), stopped when Vim exits.
#
# Vim's channel numbers the requests it sends and routes an answer to the callback of the
# request with its id, but it does not look at "method": a request Wharf sends (exporter/snapshot)
# whose id happens to be that of one of ours still waiting goes to our request's callback, and
# our answer then comes to the channel's callback. So every message, from whichever callback,
# goes through Dispatch, which tells requests and notifications (they have a method) from
# answers (they do not) and finds an answer's caller by id in `pending`.

const INTERNAL_ERROR = -32603
const METHOD_NOT_FOUND = -32601

# The server: {job, chan, state: 'starting' | 'ready' | 'gone', generation, info, stopping}.
var server: dict<any> = {state: 'stopped', generation: 0}
var generation = 0
# id -> Callback(err, result) of the requests waiting for their answers.
var pending: dict<func> = {}
# What waits for `initialize` to be answered: [method, params, Callback].
var queue: list<list<any>> = []
# Standard error's last lines, for messages about a wharf that died.
var stderr_lines: list<string> = []
# Who hears the server's notifications and requests, and of its end (the dialog layer).
var handlers: dict<func> = {}

export def SetHandlers(OnNotification: func, OnRequest: func, OnGone: func)
  handlers = {notification: OnNotification, request: OnRequest, gone: OnGone}
enddef

def Option(name: string, default: any): any
  return get(g:, 'wharf_' .. name, default)
enddef

# The command line that starts wharf: g:wharf_cmd, plus `--presenter auto` for 'native'.
export def Command(): list<string>
  var cmd = Option('cmd', ['wharf'])
  var words: list<string> = type(cmd) == v:t_string ? [cmd] : copy(cmd)
  if Option('presenter', 'auto') == 'native'
        && empty(words->copy()->filter((_, w) => w == '--presenter' || w =~# '^--presenter='))
    words += ['--presenter', 'auto']
  endif
  return words
enddef

def Log(text: string)
  var file = Option('log_file', '')
  if file != ''
    try
      writefile([strftime('%Y-%m-%d %H:%M:%S ') .. text], file, 'a')
    catch
    endtry
  endif
enddef

export def LastStderr(): list<string>
  return copy(stderr_lines)
enddef

# Calls `Callback(err, result)` later, outside whatever is running now.
def Later(Callback: func, err: any, result: any)
  timer_start(0, (_) => Callback(err, result))
enddef

# Sends a request; `Callback(err, result)` is called exactly once with its answer (err a dict
# {code, message, data?} or v:null). Starts wharf if it is not running.
export def Request(method: string, params: dict<any>, Callback: func)
  if server.state == 'ready'
    Send(method, params, Callback)
  else
    queue->add([method, params, Callback])
    if server.state != 'starting'
      Start()
    endif
  endif
enddef

# Sends a notification to a running wharf (dropped when none runs).
export def Notify(method: string, params: dict<any>)
  if server.state == 'ready'
    try
      ch_sendexpr(server.chan, {method: method, params: params})
    catch
      Log('could not send ' .. method .. ': ' .. v:exception)
    endtry
  endif
enddef

def Send(method: string, params: dict<any>, Callback: func)
  var gen = server.generation
  try
    var sent = ch_sendexpr(server.chan, {method: method, params: params},
      {callback: (_, msg) => Dispatch(gen, msg)})
    pending[string(sent.id)] = Callback
    if Option('trace', false)
      Log('-> ' .. method .. ' ' .. json_encode(params))
    endif
  catch
    Later(Callback, {code: INTERNAL_ERROR, message: 'could not send ' .. method .. ' to wharf: ' .. v:exception}, v:null)
  endtry
enddef

def Start()
  generation += 1
  var gen = generation
  var cmd = Command()
  stderr_lines = []
  server = {state: 'starting', generation: gen, info: {}, stopping: false, exit_status: -1, closed: false}
  var presenter = Option('presenter', 'auto')
  if index(['auto', 'vim', 'native'], presenter) < 0
    Gone(gen, 'g:wharf_presenter must be ''auto'', ''vim'' or ''native'', not ' .. string(presenter))
    return
  endif
  if empty(cmd) || !executable(cmd[0])
    Gone(gen, 'wharf could not be started: ' .. get(cmd, 0, '(no command)') .. ' is not an executable (set g:wharf_cmd)')
    return
  endif
  var job = job_start(cmd, {
    in_mode: 'lsp', out_mode: 'lsp', err_mode: 'nl', noblock: 1, stoponexit: 'term',
    callback: (_, msg) => Dispatch(gen, msg),
    err_cb: (_, line) => Stderr(gen, line),
    close_cb: (_) => Closed(gen),
    exit_cb: (_, status) => Exited(gen, status),
  })
  if job_status(job) != 'run'
    Gone(gen, 'wharf could not be started: ' .. join(cmd))
    return
  endif
  server.job = job
  server.chan = job_getchannel(job)
  augroup wharf_exit
    autocmd!
    autocmd VimLeavePre * wharf#rpc#Stop()
  augroup END
  Log('started ' .. join(cmd) .. ' (pid ' .. job_info(job).process .. ')')
  var capabilities: dict<any> = {presentsDialogs: presenter != 'native'}
  if presenter == 'auto'
    capabilities.prefersDesktopDialogs = true
  endif
  Send('initialize', {
    processId: getpid(),
    clientInfo: {name: Option('app', 'vim'), version: string(v:version)},
    capabilities: capabilities,
  }, (err, result) => Initialized(gen, err, result))
enddef

def Initialized(gen: number, err: any, result: any)
  if gen != server.generation
    return
  endif
  if err != null
    var message = 'wharf refused initialize: ' .. get(err, 'message', '')
    Stop()
    Gone(gen, message)
    return
  endif
  server.info = result
  server.state = 'ready'
  Notify('initialized', {})
  var waiting = queue
  queue = []
  for [method, params, Callback] in waiting
    Send(method, params, Callback)
  endfor
enddef

# Every message from wharf, whichever callback Vim gave it to.
def Dispatch(gen: number, msg: any)
  if gen != server.generation || type(msg) != v:t_dict
    return
  endif
  if Option('trace', false)
    Log('<- ' .. json_encode(msg))
  endif
  if has_key(msg, 'method')
    var params = get(msg, 'params', {})
    if type(params) != v:t_dict
      params = {}
    endif
    try
      if has_key(msg, 'id') && msg.id != null
        ServerRequest(gen, msg.id, msg.method, params)
      elseif has_key(handlers, 'notification')
        handlers.notification(msg.method, params)
      endif
    catch
      Report('handling ' .. msg.method, v:exception, v:throwpoint)
    endtry
    return
  endif
  var key = string(get(msg, 'id', v:null))
  if !has_key(pending, key)
    Log('an answer to no request: ' .. json_encode(msg))
    return
  endif
  var Callback = remove(pending, key)
  try
    if has_key(msg, 'error')
      Callback(msg.error, v:null)
    else
      Callback(v:null, get(msg, 'result', v:null))
    endif
  catch
    Report('handling an answer', v:exception, v:throwpoint)
  endtry
enddef

# An error in the plugin's own code, while handling a message: said, logged, and the next
# message is handled as usual.
def Report(what: string, exception: string, throwpoint: string)
  Log('error ' .. what .. ': ' .. exception .. ' (' .. throwpoint .. ')')
  echohl ErrorMsg
  echomsg 'wharf: error ' .. what .. ': ' .. exception
  echohl None
enddef

# Wharf's own requests: the handler answers through Reply(result, v:null) or Reply(v:null, error).
def ServerRequest(gen: number, id: number, method: string, params: dict<any>)
  var Reply = (result: any, error: any) => Answer(gen, id, result, error)
  if has_key(handlers, 'request')
    handlers.request(method, params, Reply)
  else
    Reply(v:null, {code: METHOD_NOT_FOUND, message: 'no such method: ' .. method})
  endif
enddef

def Answer(gen: number, id: number, result: any, error: any)
  if gen != server.generation || server.state != 'ready'
    return
  endif
  var message: dict<any> = {id: id}
  if error != null
    message.error = error
  else
    message.result = result
  endif
  try
    ch_sendexpr(server.chan, message)
  catch
    Log('could not answer request ' .. id .. ': ' .. v:exception)
  endtry
enddef

def Stderr(gen: number, line: string)
  if gen == server.generation
    stderr_lines->add(line)
    if len(stderr_lines) > 50
      remove(stderr_lines, 0)
    endif
  endif
  Log('wharf: ' .. line)
enddef

# The channel closed: nothing more will come. The exit status, if it is not known yet, is
# waited for a moment so that the message can say it.
def Closed(gen: number)
  if gen != server.generation
    return
  endif
  server.closed = true
  if server.exit_status >= 0
    Ended(gen)
  else
    timer_start(300, (_) => Ended(gen))
  endif
enddef

def Exited(gen: number, status: number)
  if gen != server.generation
    return
  endif
  server.exit_status = status
  Log('wharf exited with status ' .. status)
  # Answers may still be buffered in the channel: its close says when they are all read.
  if server.closed
    Ended(gen)
  else
    timer_start(500, (_) => Ended(gen))
  endif
enddef

def Ended(gen: number)
  if gen != server.generation || server.state == 'gone'
    return
  endif
  var message: string
  if server.stopping
    message = 'wharf was stopped'
  else
    message = 'wharf exited'
    if server.exit_status >= 0
      message ..= ' with status ' .. server.exit_status
    endif
    var last = stderr_lines->copy()->filter((_, l) => l !~ '^\s*$')
    if !empty(last)
      message ..= ': ' .. last[-1]
    endif
  endif
  Gone(gen, message)
enddef

# Everything waiting on this server is answered with an error, once.
def Gone(gen: number, message: string)
  if gen != server.generation || server.state == 'gone'
    return
  endif
  var stopping = get(server, 'stopping', false)
  server.state = 'gone'
  var err = {code: INTERNAL_ERROR, message: message}
  var callbacks = values(pending) + queue->mapnew((_, q) => q[2])
  pending = {}
  queue = []
  for Callback in callbacks
    Later(Callback, err, v:null)
  endfor
  if has_key(handlers, 'gone')
    handlers.gone(err, stopping)
  endif
enddef

# Ends the running wharf as the protocol asks (`shutdown`, then `exit`), killing it if it has
# not ended within a second; its open dialogs end with it. Waits: only for Vim's exit and
# :WharfStop, when nobody is choosing.
export def Stop()
  if !has_key(server, 'job') || server.state == 'gone'
    return
  endif
  var job = server.job
  server.stopping = true
  if server.state == 'ready' && ch_status(server.chan) == 'open'
    try
      ch_evalexpr(server.chan, {method: 'shutdown'}, {timeout: 1000})
      ch_sendexpr(server.chan, {method: 'exit'})
    catch
    endtry
  endif
  var deadline = reltime()
  while job_status(job) == 'run' && reltimefloat(reltime(deadline)) < 1.0
    sleep 10m
  endwhile
  if job_status(job) == 'run'
    job_stop(job, 'kill')
  endif
  Gone(server.generation, 'wharf was stopped')
enddef

# What :WharfStatus shows: whether wharf runs, its pid and what initialize said.
export def Status(): dict<any>
  var status: dict<any> = {state: server.state, command: Command(), exit_status: get(server, 'exit_status', -1)}
  if has_key(server, 'job')
    status.pid = job_info(server.job).process
  endif
  if !empty(get(server, 'info', {}))
    status.presenter = get(server.info.capabilities, 'presenter', v:null)
    status.presenters = get(server.info.capabilities, 'presenters', [])
    status.unavailable = get(server.info.capabilities, 'unavailablePresenters', {})
    status.version = get(get(server.info, 'serverInfo', {}), 'version', '')
  endif
  return status
enddef
