#!/usr/bin/env bash
# Accepts or rejects a strength change: an SPRT between a new and an old Lianzhu build,
# stopping as soon as it is decided (alpha = beta = 0.05), through scripts/match.py.
# usage: scripts/sprt.sh NEW OLD [ELO0=0] [ELO1=10] [match.py options...]
#   e.g. scripts/sprt.sh target/release/pbrain-lianzhu /tmp/old/pbrain-lianzhu 0 10 --tc 0/0.3
# Defaults: freestyle 20x20, 0.3 s/turn, up to 4000 games. "H1 accepted" means the new
# build is stronger by about ELO1; "H0 accepted" means it is not stronger than ELO0.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
new=$1
old=$2
elo0=${3:-0}
elo1=${4:-10}
shift $(($# < 4 ? $# : 4))
exec python3 "$(dirname "$0")/match.py" --engine "$new" --opponent "$old" \
    --sprt "$elo0" "$elo1" --tc 0/0.3 --games 4000 "$@"
