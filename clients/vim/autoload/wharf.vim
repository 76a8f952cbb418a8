" Wharf for Vim: the API other plugins call (wharf#import(), wharf#export(), …) and what the
" commands do. This file is not a vim9script module because Vim 9 exports only capitalised
" names and the API is wharf#import(); its functions are :def functions, compiled as Vim9
" script, and the rest of the plugin is in the vim9script modules under autoload/wharf/.

" MARK: The API

" Presents an importer. `types`: content types (a string or a list; [] for any file). `options`:
" see :help wharf-options. `Callback` is called exactly once, later, with {status: 'completed',
" urls, paths}, {status: 'cancelled', reason} or {status: 'failed', error: {code, message}}.
" Returns a handle for wharf#cancel().
def wharf#import(types: any, options: dict<any>, Callback: func): number
  return wharf#dialog#Import(types, options, Callback)
enddef

" Presents an exporter of `documents` ({filename?, types?, text | bytes | path | snapshot}).
def wharf#export(documents: any, options: dict<any>, Callback: func): number
  return wharf#dialog#Export(documents, options, Callback)
enddef

" Ends a dialog from the app's side: its callback gets {status: 'cancelled', reason: 'client'}.
def wharf#cancel(handle: number): bool
  return wharf#dialog#Cancel(handle)
enddef

" Sends any request to Wharf: Callback(err, result), err v:null or {code, message, data?}.
def wharf#request(method: string, params: dict<any>, Callback: func)
  wharf#rpc#Request(method, params, Callback)
enddef

" This app's grants and bookmarks: Callback(err, entries).
def wharf#list_access(Callback: func)
  wharf#rpc#Request('listAccess', {}, (err, result) => Callback(err, err == null ? result.entries : []))
enddef

" Revokes a grant (`url`) or a bookmark: Callback(err, count).
def wharf#revoke_access(what: dict<any>, Callback: func)
  wharf#rpc#Request('revokeAccess', what, (err, result) => Callback(err, err == null ? result.revoked : 0))
enddef

" Whether Wharf runs, its pid, and which presenter serves this Vim's dialogs.
def wharf#status(): dict<any>
  return wharf#rpc#Status()
enddef

def wharf#stop()
  wharf#rpc#Stop()
enddef

" MARK: Commands

def wharf#open(words: list<string>)
  wharf#commands#Open(words)
enddef

def wharf#save_as()
  wharf#commands#SaveAs()
enddef

def wharf#access()
  wharf#access#Open()
enddef

def wharf#status_report()
  wharf#commands#StatusReport()
enddef

" Opens paths: the first in the current window, the others as listed buffers.
def wharf#edit_paths(paths: list<string>)
  wharf#commands#EditPaths(paths)
enddef
