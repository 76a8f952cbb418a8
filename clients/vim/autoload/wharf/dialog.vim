vim9script
# Importers and exporters: their params from Vim-style options, their events, and the one call
# of each dialog's callback with {status: 'completed' | 'cancelled' | 'failed', ...}.

import autoload 'wharf/rpc.vim'
import autoload 'wharf/url.vim'

const INVALID_PARAMS = -32602
const INTERNAL_ERROR = -32603

# handle -> dialog: {handle, kind, id, done, Callback, documents, picker, cancel_wanted, temp}
var dialogs: dict<dict<any>> = {}
# dialogId -> handle
var by_id: dict<number> = {}
var next_handle = 0
var hooked = false

def Hook()
  if !hooked
    rpc.SetHandlers(Notification, ServerRequest, ServerGone)
    hooked = true
  endif
enddef

# MARK: Options


const SHARED = {
  title: ['title', v:t_string],
  message: ['message', v:t_string],
  confirmation_label: ['confirmationLabel', v:t_string],
  customization_id: ['customizationId', v:t_string],
  timeout_ms: ['timeoutMs', v:t_number],
  url_enabled: ['urlEnabled', v:t_dict],
  imports_unresolved_aliases: ['importsUnresolvedAliases', v:t_bool],
}
const BROWSER_FLAGS = {
  show_hidden: 'includeHiddenFiles',
  enumerate_packages: 'enumeratePackages',
  display_file_extensions: 'displayFileExtensions',
}
const TYPE_NAMES = {0: 'a number', 1: 'a string', 2: 'a funcref', 3: 'a list', 4: 'a dict', 5: 'a float', 6: 'a boolean', 7: 'v:null', 10: 'a blob'}

def TypeName(value: any): string
  return get(TYPE_NAMES, type(value), 'a value of type ' .. type(value))
enddef

def Expect(value: any, kind: number, name: string): any
  var ok = type(value) == kind || (kind == v:t_bool && type(value) == v:t_number && (value == 0 || value == 1))
  if !ok
    throw 'wharf-options: ' .. name .. ': expected ' .. get(TYPE_NAMES, kind, '?') .. ', got ' .. TypeName(value)
  endif
  return value
enddef

# An absolute path for a user-given one (~ is home).
export def Absolute(path: string): string
  var p = path
  if p == '~'
    p = $HOME
  elseif p =~ '^\~/'
    p = $HOME .. strpart(p, 1)
  endif
  if p !~ '^/'
    p = getcwd() .. '/' .. p
  endif
  return p
enddef

def StringList(value: any, name: string): list<string>
  if type(value) == v:t_string
    return [value]
  endif
  Expect(value, v:t_list, name)
  for i in range(len(value))
    Expect(value[i], v:t_string, printf('%s[%d]', name, i))
  endfor
  return copy(value)
enddef

def DialogOptions(opts: dict<any>, kind: string): dict<any>
  var options: dict<any> = {}
  for [key, spec] in items(SHARED)
    if has_key(opts, key)
      options[spec[0]] = Expect(opts[key], spec[1], key)
      if spec[1] == v:t_bool
        options[spec[0]] = !!opts[key] ? true : false
      endif
    endif
  endfor
  if kind == 'exporter' && has_key(opts, 'filename_label')
    options.filenameLabel = Expect(opts.filename_label, v:t_string, 'filename_label')
  endif
  if has_key(opts, 'default_directory')
    options.defaultDirectory = url.FromPath(Absolute(Expect(opts.default_directory, v:t_string, 'default_directory')))
  endif
  var browser = has_key(opts, 'browser_options') ? StringList(opts.browser_options, 'browser_options') : []
  for [key, flag] in items(BROWSER_FLAGS)
    if has_key(opts, key) && !!Expect(opts[key], v:t_bool, key) && index(browser, flag) < 0
      browser->add(flag)
    endif
  endfor
  if !empty(browser)
    options.browserOptions = sort(browser)
  endif
  return options
enddef

const SHARED_KEYS = keys(SHARED) + keys(BROWSER_FLAGS) + ['default_directory', 'browser_options', 'presentation_id', 'on_progress']

def CheckKeys(opts: dict<any>, allowed: list<string>)
  for key in keys(opts)
    if index(SHARED_KEYS, key) < 0 && index(allowed, key) < 0
      throw 'wharf-options: ' .. key .. ': not an option (see :help wharf-options)'
    endif
  endfor
enddef

export def ImporterParams(types: any, opts: dict<any>): dict<any>
  CheckKeys(opts, ['multiple', 'directory'])
  var allowed = StringList(types, 'types')
  if has_key(opts, 'directory') && !!Expect(opts.directory, v:t_bool, 'directory') && index(allowed, 'public.folder') < 0
    allowed->add('public.folder')
  endif
  if empty(allowed)
    allowed = ['public.data']
  endif
  var params: dict<any> = {
    allowedContentTypes: allowed,
    allowsMultipleSelection: has_key(opts, 'multiple') && !!Expect(opts.multiple, v:t_bool, 'multiple') ? true : false,
  }
  if has_key(opts, 'presentation_id')
    params.presentationId = Expect(opts.presentation_id, v:t_string, 'presentation_id')
  endif
  var options = DialogOptions(opts, 'importer')
  if !empty(options)
    params.options = options
  endif
  return params
enddef

# A document's contents for bytes: text when they are UTF-8 (JSON carries them as they are),
# base64 otherwise, so the file gets exactly these bytes either way.
def ContentsOfBytes(bytes: any): dict<any>
  if type(bytes) == v:t_blob
    return {base64: url.Base64(bytes)}
  endif
  return url.IsUtf8(bytes) ? {text: bytes} : {base64: url.Base64(bytes)}
enddef

# What a snapshot (or a document) gives, as `contents`: a string or Blob is bytes; a dict is one
# of {text}, {bytes}, {base64}, {path}.
export def Contents(value: any): dict<any>
  if type(value) == v:t_string || type(value) == v:t_blob
    return ContentsOfBytes(value)
  endif
  if type(value) != v:t_dict
    throw 'wharf-snapshot: a snapshot must give a string, a Blob or a dict with text, bytes, base64 or path, not ' .. TypeName(value)
  endif
  if has_key(value, 'text')
    return ContentsOfBytes(Expect(value.text, v:t_string, 'text'))
  elseif has_key(value, 'bytes')
    return ContentsOfBytes(value.bytes)
  elseif has_key(value, 'base64')
    return {base64: Expect(value.base64, v:t_string, 'base64')}
  elseif has_key(value, 'path')
    return {path: url.FromPath(Absolute(Expect(value.path, v:t_string, 'path')))}
  endif
  throw 'wharf-snapshot: a snapshot dict needs text, bytes, base64 or path'
  return {}
enddef

const DOCUMENT_KEYS = ['filename', 'types', 'text', 'bytes', 'path', 'snapshot']

export def ExporterParams(documents: any, opts: dict<any>): dict<any>
  CheckKeys(opts, ['content_type', 'content_types', 'default_filename', 'filename_label'])
  Expect(documents, v:t_list, 'documents')
  if empty(documents)
    throw 'wharf-options: documents: a non-empty list is needed'
  endif
  var docs: list<dict<any>> = []
  for i in range(len(documents))
    var name = printf('documents[%d]', i)
    var doc = Expect(documents[i], v:t_dict, name)
    for key in keys(doc)
      if index(DOCUMENT_KEYS, key) < 0
        throw 'wharf-options: ' .. name .. '.' .. key .. ': not a document field'
      endif
    endfor
    var lazy = has_key(doc, 'snapshot')
    var default_type = has_key(doc, 'text') || lazy ? 'public.plain-text' : 'public.data'
    var entry: dict<any> = {writableContentTypes: has_key(doc, 'types') ? StringList(doc.types, name .. '.types') : [default_type]}
    if has_key(doc, 'filename')
      entry.filename = Expect(doc.filename, v:t_string, name .. '.filename')
    endif
    if lazy
      Expect(doc.snapshot, v:t_func, name .. '.snapshot')
    elseif has_key(doc, 'text') || has_key(doc, 'bytes') || has_key(doc, 'path')
      entry.contents = Contents(doc)
    else
      throw 'wharf-options: ' .. name .. ': give text, bytes, path or snapshot'
    endif
    docs->add(entry)
  endfor
  var params: dict<any> = {documents: docs}
  if has_key(opts, 'content_type')
    params.contentType = Expect(opts.content_type, v:t_string, 'content_type')
  endif
  if has_key(opts, 'content_types')
    params.contentTypes = StringList(opts.content_types, 'content_types')
  endif
  if has_key(opts, 'default_filename')
    params.defaultFilename = Expect(opts.default_filename, v:t_string, 'default_filename')
  endif
  if has_key(opts, 'presentation_id')
    params.presentationId = Expect(opts.presentation_id, v:t_string, 'presentation_id')
  endif
  var options = DialogOptions(opts, 'exporter')
  if !empty(options)
    params.options = options
  endif
  return params
enddef

# MARK: Dialogs

# Presents an importer; Callback(result) is called exactly once, later. Returns a handle for
# Cancel().
export def Import(types: any, opts: dict<any>, Callback: func): number
  var d = NewDialog('importer', Callback, opts)
  try
    var params = ImporterParams(types, opts)
    Present(d, 'presentImporter', params)
  catch /^wharf-options: /
    FinishLater(d, {status: 'failed', error: {code: INVALID_PARAMS, message: substitute(v:exception, '^wharf-options: ', '', '')}})
  endtry
  return d.handle
enddef

export def Export(documents: any, opts: dict<any>, Callback: func): number
  var d = NewDialog('exporter', Callback, opts)
  try
    var params = ExporterParams(documents, opts)
    d.documents = documents
    Present(d, 'presentExporter', params)
  catch /^wharf-\(options\|snapshot\): /
    FinishLater(d, {status: 'failed', error: {code: INVALID_PARAMS, message: substitute(v:exception, '^wharf-\a*: ', '', '')}})
  endtry
  return d.handle
enddef

def NewDialog(kind: string, Callback: func, opts: dict<any>): dict<any>
  Hook()
  next_handle += 1
  var d: dict<any> = {handle: next_handle, kind: kind, id: '', done: false, Callback: Callback,
    documents: [], picker: {}, cancel_wanted: false, temp: [],
    on_progress: get(opts, 'on_progress', v:null)}
  dialogs[string(d.handle)] = d
  return d
enddef

def Present(d: dict<any>, method: string, params: dict<any>)
  rpc.Request(method, params, (err, result) => Presented(d, err, result))
enddef

def Presented(d: dict<any>, err: any, result: any)
  if d.done
    return
  endif
  if err != null
    Finish(d, {status: 'failed', error: err})
    return
  endif
  d.id = result.dialogId
  by_id[d.id] = d.handle
  if d.cancel_wanted
    Cancel(d.handle)
  endif
enddef

# Ends dialog `handle` from the app's side (reason 'client'). Returns whether it was open.
export def Cancel(handle: number): bool
  var d = get(dialogs, string(handle), {})
  if empty(d) || d.done
    return false
  endif
  if d.id == ''
    d.cancel_wanted = true
  else
    rpc.Request('cancel', {dialogId: d.id}, (err, _) => {
      if err != null && !d.done
        Finish(d, {status: 'failed', error: err})
      endif
    })
  endif
  return true
enddef

# The dialog whose id Wharf gave (v:null: none of ours).
export def ById(id: any): dict<any>
  if type(id) != v:t_string || !has_key(by_id, id)
    return {}
  endif
  return get(dialogs, string(by_id[id]), {})
enddef

# The open dialogs (for tests and :WharfStatus).
export def Open(): list<dict<any>>
  return values(dialogs)
enddef

export def Finish(d: dict<any>, result: dict<any>)
  if d.done
    return
  endif
  d.done = true
  remove(dialogs, string(d.handle))
  if d.id != '' && has_key(by_id, d.id)
    remove(by_id, d.id)
  endif
  if !empty(d.picker)
    wharf#picker#Close(d.picker)
  endif
  for file in d.temp
    delete(file)
  endfor
  try
    call(d.Callback, [result])
  catch
    echohl ErrorMsg
    echomsg 'wharf: the dialog''s callback failed: ' .. v:exception .. ' (' .. v:throwpoint .. ')'
    echohl None
  endtry
  if exists('#User#WharfDone')
    g:wharf_last_result = result
    doautocmd <nomodeline> User WharfDone
  endif
enddef

def FinishLater(d: dict<any>, result: dict<any>)
  timer_start(0, (_) => Finish(d, result))
enddef

# MARK: From wharf

def Notification(method: string, params: dict<any>)
  var d = ById(get(params, 'dialogId', v:null))
  if method == 'presenter/show'
    if empty(d) || d.done
      # Not ours to draw (a dialog that already ended): give it back rather than leave it open.
      if type(get(params, 'dialogId', v:null)) == v:t_string
        rpc.Request('dialog/dismiss', {dialogId: params.dialogId}, (_, _) => 0)
      endif
      return
    endif
    d.picker = wharf#picker#Open(d, params)
  elseif empty(d)
    return
  elseif method == 'presenter/hide'
    if !empty(d.picker)
      wharf#picker#Close(d.picker)
      d.picker = {}
    endif
  elseif method == 'dialog/completed'
    if has_key(params, 'error')
      Finish(d, {status: 'failed', error: params.error})
    else
      var urls = get(params, 'urls', [])
      var result: dict<any> = {status: 'completed', urls: urls, paths: urls->mapnew((_, u) => url.ToPath(u))}
      if has_key(params, 'contentTypes')
        result.content_types = params.contentTypes
      endif
      Finish(d, result)
    endif
  elseif method == 'dialog/cancelled'
    Finish(d, {status: 'cancelled', reason: get(params, 'reason', 'user')})
  elseif method == 'dialog/progress'
    if d.on_progress != null
      call(d.on_progress, [params])
    endif
  endif
enddef

def ServerRequest(method: string, params: dict<any>, Reply: func)
  if method != 'exporter/snapshot'
    Reply(v:null, {code: -32601, message: 'no such method: ' .. method})
    return
  endif
  var d = ById(get(params, 'dialogId', v:null))
  var index = get(params, 'documentIndex', -1)
  if empty(d) || type(index) != v:t_number || index < 0 || index >= len(d.documents)
    Reply(v:null, {code: INVALID_PARAMS, message: 'no such document'})
    return
  endif
  var doc = d.documents[index]
  try
    var value = has_key(doc, 'snapshot') ? call(doc.snapshot, [get(params, 'contentType', '')]) : doc
    Reply(Contents(value), v:null)
  catch
    Reply(v:null, {code: INTERNAL_ERROR, message: substitute(v:exception, '^wharf-\a*: ', '', '')})
  endtry
enddef

# Wharf is gone: every open dialog ends, once: 'failed' when it died, 'cancelled' with reason
# 'disconnected' when it was stopped.
def ServerGone(err: dict<any>, stopping: bool)
  for d in values(dialogs)
    if stopping
      Finish(d, {status: 'cancelled', reason: 'disconnected'})
    else
      Finish(d, {status: 'failed', error: err})
    endif
  endfor
enddef
