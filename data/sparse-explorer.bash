# bash completion for sparse-explorer.
#
# The commands, their options and the values an option lists come from the
# program's own help ("sparse-explorer COMMAND --help"), read once per
# command and shell, so the completion follows the program it completes.

# Reads help text on stdin and prints what it offers, one item a line:
#   @command NAME          a command (from the "Commands:" list)
#   @files                 the usage takes FILE (or PATH) arguments
#   LONG SHORT ARG WORD…   an option; SHORT and ARG are "-" when absent;
#                          the WORDs are its fixed values: those the text
#                          lists as "a, b or c" and the lower-case ones of
#                          an ARG like N|best
_sparse_explorer_parse ()
{
    awk '
    # The values a description lists. Parenthesised asides go first, so
    # "both (default), tilewise (…) or all" reads as a plain list.
    function listed(d,    out, m, rest, k, i, parts) {
        while (match(d, /\([^()]*\)/))
            d = substr(d, 1, RSTART - 1) substr(d, RSTART + RLENGTH)
        gsub(/  +/, " ", d); gsub(/ ,/, ",", d); gsub(/ ;/, ";", d)
        out = ""
        while (match(d, /[a-z0-9_]+(, [a-z0-9_]+)*,? or [a-z0-9_]+/)) {
            m = substr(d, RSTART, RLENGTH)
            rest = substr(d, RSTART + RLENGTH)
            # inside a word or a number ("0.1 or 1/16"): look further on
            if (RSTART > 1 && substr(d, RSTART - 1, 1) != " ") {
                d = substr(d, RSTART + 1)
                continue
            }
            k = split(m, parts, /,? or |, /)
            if (m ~ /, or / && k < 3)
                k = 0           # "the dense operand, or best": prose
            else if (rest != "" && rest !~ /^([ ,;]|\.( |$))/)
                k = 0           # the last value runs on: "1/16"
            else if (rest ~ /^ [a-z]/)
                k--             # it is prose: "or a machine key file"
            for (i = 1; k >= 2 && i <= k; i++)
                out = out " " parts[i]
            d = rest
        }
        return out
    }
    /^[^ ]/ {                   # a heading: "Usage:", "Commands:", …
        heading = $0
        usage = ($0 == "Usage:" || $0 ~ /^Usage: /)
        if (usage && $0 ~ /FILE|PATH/)
            print "@files"
        next
    }
    usage && /FILE|PATH/ { print "@files" }
    { usage = 0 }
    heading == "Commands:" && /^  [a-z]+ / { print "@command", $1; next }
    /^ +(-[A-Za-z0-9], )?--[a-z]/ {
        line = $0
        sub(/^ +/, "", line)
        short = "-"
        if (line ~ /^-[A-Za-z0-9], /) {
            short = substr(line, 1, 2)
            line = substr(line, 5)
        }
        match(line, /^--[a-z0-9-]+/)
        name = substr(line, 1, RLENGTH)
        line = substr(line, RLENGTH + 1)
        arg = "-"
        if (line ~ /^=/) {
            match(line, /^=[^ ]+/)
            arg = substr(line, 2, RLENGTH - 1)
            line = substr(line, RLENGTH + 1)
        }
        words = ""
        n = split(arg, alts, "|")
        for (i = 1; n > 1 && i <= n; i++)
            if (alts[i] ~ /^[a-z0-9]+$/)
                words = words " " alts[i]
        print name, short, arg words listed(line)
    }'
}

# What the program at $1 offers for command $2 (none: the program itself),
# cached per program and command.
declare -gA _sparse_explorer_cache
_sparse_explorer_table ()
{
    local key="$1|$2"
    if [[ -z ${_sparse_explorer_cache[$key]+set} ]]; then
        # the program's --help lists the window's options too
        _sparse_explorer_cache[$key]=$("$1" ${2:+"$2"} --help 2>/dev/null |
                                       _sparse_explorer_parse)
    fi
    printf '%s\n' "${_sparse_explorer_cache[$key]}"
}

# Adds to COMPREPLY the file names that start with $1.
_sparse_explorer_files ()
{
    local f
    compopt -o filenames 2>/dev/null
    while IFS= read -r f; do
        COMPREPLY+=("$f")
    done < <(compgen -f -- "$1")
}

_sparse_explorer ()
{
    local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
    local opt="" prefix="" cmd="" table line
    [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
    COMPREPLY=()

    # "--mode=st": split at "=" by bash (COMP_WORDBREAKS), or not
    if [[ $cur == "=" ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 1]} cur=""
    elif ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[COMP_CWORD - 1]} == "=" ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}
    elif ((COMP_CWORD >= 2)); then
        opt=${COMP_WORDS[COMP_CWORD - 1]}
    fi

    # the command is the first word, as the program reads it
    table=$(_sparse_explorer_table "$prog" "")
    if ((COMP_CWORD >= 2)) &&
        grep -qxF "@command ${COMP_WORDS[1]}" <<<"$table"; then
        cmd=${COMP_WORDS[1]}
        table=$(_sparse_explorer_table "$prog" "$cmd")
    fi

    # a value of the option before it
    local name short arg words
    if [[ $opt == -* ]]; then
        while read -r name short arg words; do
            [[ $name == "$opt" || $short == "$opt" ]] || continue
            [[ $arg == "-" ]] && break       # a switch: go on below
            local w
            for w in $(compgen -W "$words" -- "$cur"); do
                COMPREPLY+=("$prefix$w")
            done
            [[ $arg == *FILE* && -z $prefix ]] && _sparse_explorer_files "$cur"
            return 0
        done <<<"$table"
    fi

    if [[ $cur == -* ]]; then
        local names=""
        while read -r name short arg words; do
            [[ $name == --* ]] && names+=" $name"
        done <<<"$table"
        mapfile -t COMPREPLY < <(compgen -W "$names" -- "$cur")
        return 0
    fi
    if [[ -z $cmd ]] && ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W \
            "$(sed -n 's/^@command //p' <<<"$table")" -- "$cur")
    fi
    if grep -qxF "@files" <<<"$table"; then
        _sparse_explorer_files "$cur"
    elif [[ -n $cmd ]]; then
        # no arguments but options: offer those
        mapfile -t COMPREPLY < <(compgen -W \
            "$(awk '$1 ~ /^--/ { print $1 }' <<<"$table")" -- "$cur")
    fi
    return 0
}
complete -F _sparse_explorer sparse-explorer
