# What zsh offers for a command line: zsh -f complete.zsh DIR LINE prints the candidates, one a
# line, that the completion functions in DIR (on fpath) add when LINE is completed with a tab.
# zsh completes only in an interactive shell at a terminal, so one runs under zpty, with
# compadd wrapped to write what it adds to a file.
zmodload zsh/zpty || exit 1
dir=$1 line=$2
out=$(mktemp) || exit 1
zpty shell zsh -f -i
zpty -w shell "PS1='%% '; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w shell "compadd() { local -a hits; builtin compadd -A hits \"\$@\"; print -rl -- \$hits >> ${(q)out}; builtin compadd \"\$@\"; }"
# comppostfuncs runs once the completion has finished: it leaves a mark, waited for below (the
# shell reads the next keys only after, but nothing else tells this script when that is).
zpty -w shell "comppostfuncs=(completion-done); completion-done() { print -r -- '<done>' >> ${(q)out}; }"
zpty -w shell "zstyle ':completion:*' menu no; print RE''ADY"
zpty -r shell text '*READY*' || exit 1
zpty -n -w shell "$line"$'\t'
for attempt in {1..300}; do
    grep -qxF '<done>' $out && break
    sleep 0.1
done
zpty -w shell $'\C-u'"print DO''NE"
zpty -r shell text '*DONE*' || exit 1
zpty -w shell exit
zpty -d shell
grep -v -e '^$' -e '^<done>$' $out | sort -u
rm -f $out
