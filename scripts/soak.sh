#!/usr/bin/env bash
# Soak test: N self-play games of the release build at a short time control under
# c-gomoku-cli with concurrency 2, reporting time losses, crashes and illegal moves.
# usage: scripts/soak.sh [GAMES=200] [TC=0/0.1] [RULE=0] [SIZE=20]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-200}
tc=${2:-0/0.1}
rule=${3:-0}
size=${4:-20}
cargo build --release --quiet
engine=target/release/pbrain-lianzhu
copy=$(mktemp -d)/pbrain-lianzhu
cp "$engine" "$copy"
report=$(python3 scripts/match.py --engine "$engine" --opponent "$copy" --rule "$rule" --size "$size" \
    --tc "$tc" --games "$games" --concurrency 2 | tail -4)
echo "$report"
failures=$(echo "$report" | grep -o 'time [0-9]*, crash [0-9]*, error at START [0-9]*, illegal move [0-9]*, forbidden move [0-9]*' \
    | grep -o '[0-9]*' | awk '{ s += $1 } END { print s + 0 }')
echo "soak: $games games, $failures failures"
[ "$failures" -eq 0 ]
