-- file: URLs <-> paths, byte for byte (the plugin's own decoding, run in a child as it is shipped).
local H = require('helpers')
local eq = H.eq

H.test('url: percent-decoding is byte-exact and strict', function(c)
  local results = c:lua([[
    local url = require('wharf.url')
    local out = {}
    local function check(u) local p, e = url.to_path(u); table.insert(out, { p or vim.NIL, e and true or false }) end
    check('file:///tmp/a%20b')
    check('file:///tmp/x%FFy%00')
    check('file:///tmp/x%FFy')
    check('file://localhost/tmp/%25')
    check('file:/tmp/plain')
    check('file:///tmp/bad%2')
    check('file:///tmp/bad%zz')
    check('file://elsewhere/tmp')
    check('http://x/y')
    check('file:///tmp/%C3%A9t%C3%A9')
    return out
  ]])
  eq({ '/tmp/a b', false }, results[1], 'space')
  eq({ vim.NIL, true }, results[2], 'NUL refused')
  eq({ '/tmp/x\255y', false }, results[3], 'a byte that is not UTF-8')
  eq({ '/tmp/%', false }, results[4], 'localhost, %25')
  eq({ '/tmp/plain', false }, results[5], 'file:/path')
  eq({ vim.NIL, true }, results[6], 'a short escape')
  eq({ vim.NIL, true }, results[7], 'a bad escape')
  eq({ vim.NIL, true }, results[8], 'another host')
  eq({ vim.NIL, true }, results[9], 'not file:')
  eq({ '/tmp/été', false }, results[10], 'UTF-8')
  local round = c:lua([[
    local url = require('wharf.url')
    local path = '/tmp/' .. string.char(1, 32, 35, 37, 63, 128, 200, 255) .. '/é'
    return { url.from_path(path), url.to_path(url.from_path(path)) == path }
  ]])
  eq({ 'file:///tmp/%01%20%23%25%3F%80%C8%FF/%C3%A9', true }, round, 'round trip')
end)
