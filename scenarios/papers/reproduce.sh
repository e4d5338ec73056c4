#!/usr/bin/env bash
# Runs the paper scenarios of this folder, full size or their quick variants, and prints one
# Markdown table row per scenario with its wall and CPU time (the tables of
# docs/reproductions.md).
#
#   scenarios/papers/reproduce.sh --quick              every quick variant
#   scenarios/papers/reproduce.sh p0-table2.toml ...   these, full size, then the comparison
#                                                      with the published values
#   scenarios/papers/reproduce.sh --cost 20 [FILE...]  estimate each file's full-size cost
#
# --cost N runs one seed of every sweep point, one run at a time, for 1/N of the file's
# simulated time (duration, warm-up and drain each divided by N), and prints the measured CPU
# time and peak memory beside the full-size estimate: CPU x N x seeds. The estimate assumes the
# cost grows in proportion to simulated time, which holds once the flows are past their start:
# a sample keeps at least COST_FLOOR seconds of the duration (default 1; shorter files run
# whole), and a file with [[events]] or flow classes starting or stopping at fixed times, or
# that sweeps the duration, keeps its full length.
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
cost=0
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=true ;;
        --cost)
            cost=${2:-}
            [[ "$cost" =~ ^[1-9][0-9]*$ ]] || { echo "--cost needs a whole number N >= 1" >&2; exit 2; }
            shift ;;
        *) files+=("scenarios/papers/${1#scenarios/papers/}") ;;
    esac
    shift
done
[ ${#files[@]} -gt 0 ] || files=(scenarios/papers/*.toml)

# The `# Quick:` command of a file, its continuation lines (ending in `\`) joined.
quick_command() {
    awk '/^# Quick: /{on=1; sub(/^# Quick: /, "")}
         on {line=$0; sub(/^#[ ]+/, "", line); cont=sub(/\\$/, "", line); printf "%s ", line; if (!cont) exit}' "$1"
}

# A `[run]` time of a file (duration, warmup, drain) divided by a factor, in nanoseconds; empty
# if the file does not set it.
scaled_time() {
    awk -v key="$2" -v n="$3" '
        /^\[/ { in_run = ($0 ~ /^\[run\]/) }
        in_run && $0 ~ "^" key " *=" {
            if (match($0, /"[0-9.]+ *(s|ms|us|ns)"/)) {
                v = substr($0, RSTART + 1, RLENGTH - 2)
                num = v + 0; unit = v; sub(/^[0-9. ]+/, "", unit)
                f = (unit == "s") ? 1e9 : (unit == "ms") ? 1e6 : (unit == "us") ? 1e3 : 1
                printf "%.0fns", num * f / n
            }
        }' "$1"
}

if [ "$cost" -gt 0 ]; then
    [ -x /usr/bin/time ] || { echo "--cost measures with GNU time: install it (/usr/bin/time)" >&2; exit 2; }
    echo "| scenario | runs at full size | sample: points x 1 seed | share of the time | sample CPU time | sample peak memory | full size, estimated CPU time |"
    echo "|---|---|---|---|---|---|---|"
    for f in "${files[@]}"; do
        name=$(basename "$f" .toml)
        check=$("$HTSIM" validate "$f") || exit 2
        points=$(sed -E 's/.*ok: ([0-9]+) point.*/\1/' <<<"$check")
        runs=$(sed -E 's/.* ([0-9]+) run.*/\1/' <<<"$check")
        # The factor: at most N, and no shorter than the floor.
        duration_ns=$(scaled_time "$f" duration 1)
        n=$(awk -v d="${duration_ns%ns}" -v c="$cost" -v fl="${COST_FLOOR:-1}" \
            'BEGIN { n = int(d / (fl * 1e9)); n = n < 1 ? 1 : n; print (n < c ? n : c) }')
        ! grep -Eq '^(\[\[events\]\]|start *=|stop *=|"run\.duration")' "$f" || n=1
        sets=(--set run.seeds=1)
        for key in duration warmup drain; do
            t=$(scaled_time "$f" "$key" "$n")
            [ -z "$t" ] || [ "$n" -eq 1 ] || sets+=(--set "run.$key=$t")
        done
        dir="$OUT/$name-cost$n"
        rm -rf "$dir"
        mkdir -p "$dir"
        # GNU time: wall, user and system seconds and peak resident memory (KiB) of the
        # process, which runs the points one after another (--jobs 1).
        /usr/bin/time -f '%e %U %S %M' -o "$dir.time" \
            "$HTSIM" run "$f" "${sets[@]}" --jobs 1 --out "$dir" --quiet >/dev/null 2>"$dir.log" || {
            echo "| $name | $runs | $points | 1/$n | failed: see $dir.log | | |"
            continue
        }
        read -r _ user sys kib <"$dir.time"
        awk -v n="$name" -v r="$runs" -v p="$points" -v u="$user" -v s="$sys" -v k="$kib" \
            -v c="$n" -v seeds=$((runs / points)) '
            function human(sec) {
                return sec < 120 ? sprintf("%.0f s", sec) : sec < 7200 ? sprintf("%.0f min", sec / 60) : sprintf("%.1f h", sec / 3600)
            }
            BEGIN {
                cpu = u + s
                printf "| %s | %d | %d | 1/%d | %.1f s | %.0f MB | %s |\n", n, r, p, c, cpu, k * 1024 / 1e6, human(cpu * c * seeds)
            }'
    done
    exit 0
fi

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

# The comparison with the published values of every file that carries them, as
# `htsim report` prints it (full size only: a quick variant's numbers are not the paper's).
$quick && exit 0
for f in "${files[@]}"; do
    dir="$OUT/$(basename "$f" .toml)-full"
    [ -f "$dir/reference.csv" ] || continue
    echo
    "$HTSIM" report "$dir" 2>>"$dir.log" | sed -n '/^source /,$p'
done
