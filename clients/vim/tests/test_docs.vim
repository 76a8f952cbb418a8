vim9script
# The docs say what the plugin has: :helptags runs clean, and every command, option and API
# function has its help tag and its place in README.md.

const ROOT = expand('<script>:p:h:h')

def Options(): list<string>
  var names: list<string> = []
  for file in glob(ROOT .. '/autoload/**/*.vim', 0, 1)
    for line in readfile(file)
      var name = matchstr(line, 'Option(''\zs\w\+\ze''')
      if name != ''
        names->add('g:wharf_' .. name)
      endif
    endfor
  endfor
  return uniq(sort(names))
enddef

def Functions(): list<string>
  return readfile(ROOT .. '/autoload/wharf.vim')->filter((_, l) => l =~ '^def wharf#')->map((_, l) => matchstr(l, '^def \zs[^(]\+') .. '()')
enddef

def g:Test_helptags_run_clean_and_tag_everything()
  var copy = tempname()
  mkdir(copy)
  writefile(readfile(ROOT .. '/doc/wharf.txt'), copy .. '/wharf.txt')
  execute 'helptags ' .. fnameescape(copy)
  var tags = readfile(copy .. '/tags')->map((_, l) => matchstr(l, '^[^\t]*'))
  var commands = getcompletion('Wharf', 'command')
  assert_equal(['WharfAccess', 'WharfOpen', 'WharfSaveAs', 'WharfStatus', 'WharfStop'], sort(commands))
  var options = Options()
  assert_true(len(options) >= 7, string(options))
  for tag in commands->mapnew((_, c) => ':' .. c) + options + Functions()
    assert_true(index(tags, tag) >= 0, tag .. ' has no help tag')
  endfor
  delete(copy, 'rf')
enddef

def g:Test_the_readme_names_every_command_and_option()
  var readme = join(readfile(ROOT .. '/README.md'), "\n")
  for name in getcompletion('Wharf', 'command')->mapnew((_, c) => ':' .. c) + Options()
    assert_match('`' .. name .. '\>', readme, name .. ' is not in README.md')
  endfor
  var nvim = join(readfile(ROOT .. '/../nvim/README.md'), "\n")
  assert_true(nvim =~ '(\.\./vim/README\.md)' && nvim =~ 'same keys and look',
    'the Neovim README says the pickers share keys and look')
  assert_true(readme =~ '(\.\./nvim/README\.md)' && readme =~ 'keys and the look',
    'this README says the pickers share keys and look')
enddef
