#!/usr/bin/env bash
# Runs the paper scenarios of this folder, full size or their quick variants, and prints one
# Markdown table row per scenario with its wall and CPU time (the tables of
# docs/reproductions.md).
#
#   scenarios/papers/reproduce.sh --quick              every quick variant
#   scenarios/papers/reproduce.sh p0-table2.toml ...   these, full size
#
# HTSIM names the binary (default: target/release/htsim, built with
# `cargo build --release -p htsim-cli`); results go to OUT (default results/papers), one
# directory per scenario (and its log next to it). The quick command is the `# Quick:` line
# of each file's header.
set -euo pipefail
cd "$(dirname "$0")/../.."

HTSIM=${HTSIM:-${CARGO_TARGET_DIR:-target}/release/htsim}
OUT=${OUT:-results/papers}
quick=false
files=()
for a in "$@"; do
    case "$a" in
        --quick) quick=true ;;
        *) files+=("scenarios/papers/${a#scenarios/papers/}") ;;
    esac
done
[ ${#files[@]} -gt 0 ] || files=(scenarios/papers/*.toml)

# The `# Quick:` command of a file, its continuation lines (ending in `\`) joined.
quick_command() {
    awk '/^# Quick: /{on=1; sub(/^# Quick: /, "")}
         on {line=$0; sub(/^#[ ]+/, "", line); cont=sub(/\\$/, "", line); printf "%s ", line; if (!cont) exit}' "$1"
}

echo "| scenario | variant | runs | wall time | CPU time |"
echo "|---|---|---|---|---|"
TIMEFORMAT='%R %U %S'
for f in "${files[@]}"; do
    name=$(basename "$f" .toml)
    if $quick; then
        cmd=$(quick_command "$f")
        [ -n "$cmd" ] || { echo "$f: no '# Quick:' line" >&2; exit 2; }
        cmd="${cmd#htsim run }"
        variant=quick
    else
        cmd="$f"
        variant=full
    fi
    dir="$OUT/$name-$variant"
    rm -rf "$dir"
    mkdir -p "$dir"
    # `time` reports wall, user and system seconds of htsim and its threads.
    times=$({ time eval "\"$HTSIM\" run $cmd --out \"$dir\" --quiet" >/dev/null 2>"$dir.log"; } 2>&1) ||
        { cat "$dir.log" >&2; exit 1; }
    read -r wall user sys <<<"$times"
    runs=$(find "$dir/runs" -name summary.json | wc -l)
    awk -v n="$name" -v v="$variant" -v r="$runs" -v w="$wall" -v u="$user" -v s="$sys" \
        'BEGIN { printf "| %s | %s | %d | %.1f s | %.1f s |\n", n, v, r, w, u + s }'
done
