#!/usr/bin/env bash
# A balancing study with GNU parallel over ssh hosts (docs/simulations.md): shards go to
# whichever host has a free slot, their tally files come back here, and are merged.
#
#   HOSTS=2/alice,2/bob,: deploy/parallel.sh games/ice-rink-bots.toml 64000 16 --compare more-lives
#
# HOSTS is GNU parallel's --sshlogin list ("N/host": N jobs at once on host; ":" is this
# machine; default: only this machine). Each host needs `rally` on its PATH and this folder
# (the game file, its boards and rules) at the same path, e.g. a checkout of the study.
set -euo pipefail
usage="usage: deploy/parallel.sh GAME GAMES SHARDS [rally sim flags...]"
game=${1:?$usage}
games=${2:?$usage}
m=${3:?$usage}
shift 3
out=${RALLY_SHARDS:-sim-shards}
mkdir -p "$out"
seq 0 $((m - 1)) | parallel --sshlogin "${HOSTS:-:}" --workdir "$PWD" --return "$out/{}.json" \
  --halt now,fail=1 \
  "mkdir -p $out && rally sim $(printf '%q' "$game") --games $games --shard {}/$m --threads 1 --out $out/{}.json -q $(printf '%q ' "$@") > /dev/null"
rally sim merge "$out"/*.json
