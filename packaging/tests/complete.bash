# What bash offers for a command line: bash complete.bash SCRIPT LINE prints the candidates,
# one a line, that the completion SCRIPT gives when LINE is completed, after loading
# bash-completion as an interactive shell does. Also checks that SCRIPT registers a
# completion for the command (complete -p). LINE is split at spaces (a trailing space means
# an empty word to complete).
source /usr/share/bash-completion/bash_completion || exit 1
source "$1" || exit 1
line=$2
command=${line%% *}
complete -p "$command" >/dev/null || { echo "no completion registered for $command" >&2; exit 1; }
read -ra COMP_WORDS <<<"$line"
[[ $line == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
COMPREPLY=()
function=$(complete -p "$command" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
"$function" "$command" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
