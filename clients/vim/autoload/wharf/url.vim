vim9script
# File URLs and paths, byte for byte. A Vim string is bytes, and so is a Linux path: a URL is
# decoded to exactly the bytes its %XY escapes name, and a path is encoded byte by byte, so a
# name that is not UTF-8 goes to Wharf and comes back unchanged.

# Bytes that stay as they are in a URL Wharf would write: unreserved ASCII and "/".
const KEEP = '^[A-Za-z0-9._~/-]$'

# The bytes of a one-byte string, 0 to 255 (a lone byte of a UTF-8 sequence included).
def Byte(s: string, i: number): number
  return char2nr(strpart(s, i, 1))
enddef

# A file: URL for an absolute path: every byte but unreserved ASCII and "/" as %XY.
export def FromPath(path: string): string
  var parts: list<string> = []
  for i in range(strlen(path))
    var c = strpart(path, i, 1)
    if c =~# KEEP
      parts->add(c)
    else
      parts->add(printf('%%%02X', Byte(path, i)))
    endif
  endfor
  return 'file://' .. parts->join('')
enddef

# The path of a file: URL (with an empty host or localhost), each %XY decoded to its byte;
# '' for anything else.
export def ToPath(url: string): string
  var rest: string
  if url =~# '^file:///'
    rest = strpart(url, 7)
  elseif url =~# '^file://localhost/'
    rest = strpart(url, 16)
  else
    return ''
  endif
  return rest->substitute('%\(\x\x\)', '\=printf("%c", str2nr(submatch(1), 16))', 'g')
enddef

# The last component of a URL or path, as bytes.
export def Basename(url_or_path: string): string
  var path = url_or_path =~# '^file:' ? ToPath(url_or_path) : url_or_path
  return path->substitute('/\+$', '', '')->matchstr('[^/]*$')
enddef

# The URL of `name` (bytes) inside the folder `dir_url`.
export def Join(dir_url: string, name: string): string
  var dir = ToPath(dir_url)
  return FromPath((dir =~ '/$' ? dir : dir .. '/') .. name)
enddef

# Whether `s` is valid UTF-8 (what a JSON string can carry as it is).
export def IsUtf8(s: string): bool
  return s == '' || iconv(s, 'utf-8', 'utf-16') != ''
enddef

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

# Base64 of bytes given as a list of numbers (Vim 9.0 has no base64_encode()).
def Base64OfBytes(bytes: list<number>): string
  var out: list<string> = []
  var n = len(bytes)
  var i = 0
  while i < n
    var b0 = bytes[i]
    var b1 = i + 1 < n ? bytes[i + 1] : 0
    var b2 = i + 2 < n ? bytes[i + 2] : 0
    var triple = b0 * 65536 + b1 * 256 + b2
    out->add(ALPHABET[triple / 262144])
    out->add(ALPHABET[(triple / 4096) % 64])
    out->add(i + 1 < n ? ALPHABET[(triple / 64) % 64] : '=')
    out->add(i + 2 < n ? ALPHABET[triple % 64] : '=')
    i += 3
  endwhile
  return out->join('')
enddef

# Base64 of a string's bytes or of a Blob.
export def Base64(data: any): string
  if type(data) == v:t_blob
    return Base64OfBytes(blob2list(data))
  endif
  var s: string = data
  return Base64OfBytes(range(strlen(s))->map((_, i) => Byte(s, i)))
enddef
