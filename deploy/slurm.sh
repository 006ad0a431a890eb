#!/usr/bin/env bash
# A balancing study as a Slurm job array (docs/simulations.md): array task K plays shard
# K of M and writes its tally file; merge them once every task is done.
#
#   mkdir -p logs
#   sbatch --array=0-15 deploy/slurm.sh games/ice-rink-bots.toml 64000 --compare more-lives
#   rally sim merge sim-shards/*.json            # when the array has finished
#
# M is the size of the array (SLURM_ARRAY_TASK_COUNT) and K counts from the array's first
# index, so --array=0-15 and --array=1-16 both mean shards 0/16 .. 15/16 (no step: `:2`).
# Every task must see the same game file, boards and rules (a shared folder or a checkout).
#SBATCH --job-name=rally-sim
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=logs/rally-sim-%A_%a.log
set -euo pipefail
usage="usage: sbatch --array=0-(M-1) deploy/slurm.sh GAME GAMES [rally sim flags...]"
game=${1:?$usage}
games=${2:?$usage}
shift 2
k=$(( ${SLURM_ARRAY_TASK_ID:?$usage} - ${SLURM_ARRAY_TASK_MIN:-0} ))
m=${SLURM_ARRAY_TASK_COUNT:?$usage}
out=${RALLY_SHARDS:-sim-shards}
mkdir -p "$out"
rally sim "$game" --games "$games" --shard "$k/$m" --threads "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$out/$k.json" -q "$@"
