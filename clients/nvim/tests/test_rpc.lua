-- wharf.rpc, the plugin's layer over vim.lsp.rpc, on what vim.lsp.rpc does not do itself: each
-- test drives `rpc.start` in the child against a stand-in server (tests/stand_in_server.py) that
-- gives on cue what a real wharf gives only in races or as it ends. The rest of the suite runs
-- the same layer against the real wharf.
local H = require('helpers')
local eq, contains = H.eq, H.contains

local STAND_IN = H.plugin_dir .. '/tests/stand_in_server.py'

--- Starts the stand-in in the child as `T.rpc`; the server's requests go to `T.asked`, its end
--- to `T.exited`, each request's answer to `T.answers[tag]` (see `request`).
local function start(c)
  c:lua([[
    local script = ...
    T.answers, T.exited = {}, nil
    T.rpc = assert(require('wharf.rpc').start({ 'python3', script }, {
      on_notification = function() end,
      on_request = function(method, params, reply)
        T.asked = { method = method, params = params, reply = reply }
      end,
      on_exit = function(code, _, message)
        T.exited = { code = code, message = message }
      end,
    }, { log_file = T.root .. '/rpc.log' }))
  ]], STAND_IN)
end

local function request(c, tag, method, params)
  c:lua([[
    local tag, method, params = ...
    T.rpc:request(method, params, function(err, result)
      T.answers[tag] = T.answers[tag] or {}
      table.insert(T.answers[tag], { err = err, result = result })
    end)
  ]], tag, method, params or vim.empty_dict())
end

--- Waits for the answer to `tag`'s request; returns it (`{err, result}`).
local function answer(c, tag)
  c:wait(function()
    return c:lua('return T.answers[...] ~= nil', tag)
  end, 'the answer to ' .. tag)
  vim.wait(100)
  eq(1, c:lua('return #T.answers[...]', tag), 'the callback called once')
  return c:lua('return T.answers[...][1]', tag)
end

--- Ends the stand-in (its input closed) and waits for its end to be handled.
local function stop(c)
  c:lua('T.rpc:close_stdin()')
  c:wait(function()
    return c:lua('return T.exited ~= nil')
  end, 'the stand-in to exit')
  eq(0, c:lua('return T.exited.code'), 'it exited cleanly')
end

H.test('rpc: an answer -32800 reaches the request\'s callback (vim.lsp.rpc withholds it)', { dialogs = 0 }, function(c)
  start(c)
  request(c, 'cancelled', 'cancelled')
  local r = answer(c, 'cancelled')
  eq(-32800, r.err.code, 'the code')
  contains(r.err.message, 'cancelled', 'the message')
  -- The session goes on: the next request is answered as usual.
  request(c, 'after', 'ping')
  eq('pong', answer(c, 'after').result, 'the next answer')
  stop(c)
end)

H.test('rpc: a request from the server is answered when its handler replies, after it returned', { dialogs = 0 }, function(c)
  start(c)
  request(c, 'ask', 'ask', { question = 'which?' })
  c:wait(function()
    return c:lua('return T.asked ~= nil')
  end, 'the server\'s request')
  eq({ 'client/question', 'which?' }, c:lua('return { T.asked.method, T.asked.params.question }'), 'what it asked')
  -- The handler has returned without answering; the answer comes later, from a timer.
  vim.wait(200)
  eq(false, c:lua('return T.answers.ask ~= nil'), 'no answer yet')
  c:lua('vim.defer_fn(function() T.asked.reply(nil, { choice = "this" }) end, 50)')
  local r = answer(c, 'ask')
  eq('question-1', r.result.id, 'the answer went to the server\'s request')
  eq({ choice = 'this' }, r.result.result, 'with what the handler replied')
  stop(c)
end)

H.test('rpc: JSON null reads as nil, in objects and arrays', { dialogs = 0 }, function(c)
  start(c)
  request(c, 'nulls', 'nulls')
  answer(c, 'nulls')
  eq({ 1, false, false, true, 3 }, c:lua([[
    local r = T.answers.nulls[1].result
    return { r.kept, r.gone ~= nil, r.nested.gone ~= nil, r.list[2] == nil, r.list[3] }
  ]]), 'kept, gone, nested gone, the array\'s null, the array after it')
  stop(c)
end)

H.test('rpc: a request waiting as the process ends gets how it ended and its last words', { dialogs = 0 }, function(c)
  start(c)
  request(c, 'die', 'die', { words = 'stand-in: out of patience' })
  local r = answer(c, 'die')
  eq(-32603, r.err.code, 'the code')
  eq('wharf exited with status 3: stand-in: out of patience', r.err.message, 'the message')
  c:wait(function()
    return c:lua('return T.exited ~= nil')
  end, 'on_exit')
  eq('wharf exited with status 3: stand-in: out of patience', c:lua('return T.exited.message'), 'on_exit\'s message')
  contains(H.read(c.root .. '/rpc.log'), 'stand-in: out of patience', 'its stderr in the log')
  -- Nothing goes to a process that has ended: a request fails at once.
  request(c, 'after', 'ping')
  eq(-32603, answer(c, 'after').err.code, 'a request after the end')
end)

H.test('rpc: a large answer arrives whole, in order with the next', { dialogs = 0 }, function(c)
  start(c)
  local size = 8 * 1024 * 1024
  request(c, 'large', 'large', { size = size })
  request(c, 'next', 'ping')
  c:wait(function()
    return c:lua('return T.answers.next ~= nil')
  end, 'the answers')
  eq({ size, true, 'pong' }, c:lua([[
    local text = T.answers.large[1].result.text
    return { #text, text:find('[^x]') == nil, T.answers.next[1].result }
  ]]), 'the length, every byte, and the next answer')
  eq(true, c:lua('return T.answers.large ~= nil'), 'the large one first')
  stop(c)
end)
