#!/usr/bin/env bash
# A single-node Slurm cluster on localhost for tests (recipe: ../shared/docs/slurm.md).
#   scripts/slurm/local-cluster.sh start STATE_DIR   # munged, slurmctld, slurmd; waits for an idle node
#   scripts/slurm/local-cluster.sh stop STATE_DIR    # stops what start started
# Needs root and Debian's slurm-wlm and munge (`make setup` installs them).
set -euo pipefail
cmd=${1:?start|stop} state=$(realpath -m "${2:?state dir}")
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

stop_pid() {  # stop the process in a PID file; a zombie counts as stopped
  local file=$1
  [ -f "$file" ] || return 0
  local pid; pid=$(cat "$file")
  as_root kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    local st; st=$(ps -o stat= -p "$pid" 2>/dev/null || true)
    [ -z "$st" ] || [[ $st == Z* ]] && break
    sleep 0.1
  done
  rm -f "$file"
}

case $cmd in
start)
  mkdir -p "$state"/{spool,ctld,log}
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -f /etc/munge/munge.key ] || as_root mungekey
    as_root install -d -o munge -g munge -m 0755 /run/munge
    as_root runuser -u munge -- munged
    touch "$state/started-munged"
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  node=$(slurmd -C | head -n 1 | sed -E 's/^NodeName=[^ ]+ //; s/ UpTime.*//')
  comm=""
  [ "$(getent hosts "$(hostname)" | awk '{print $1; exit}')" = 127.0.0.1 ] && comm="CommunicationParameters=NoCtldInAddrAny,NoInAddrAny"
  cat > "$state/slurm.conf" <<CONF
ClusterName=goce-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
$comm
NodeName=localhost NodeAddr=127.0.0.1 $node
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$state/slurm.conf
  as_root env SLURM_CONF="$SLURM_CONF" slurmctld -i
  as_root env SLURM_CONF="$SLURM_CONF" slurmd -N localhost
  for _ in $(seq 100); do
    out=$(timeout 5 sinfo -h -o %T 2>/dev/null || true)
    [ "$out" = idle ] && { echo "slurm: node idle (SLURM_CONF=$SLURM_CONF)"; exit 0; }
    sleep 0.2
  done
  echo "slurm: the node did not come up; logs in $state/log" >&2
  exit 1
  ;;
stop)
  stop_pid "$state/slurmd.pid"
  stop_pid "$state/slurmctld.pid"
  if [ -f "$state/started-munged" ]; then
    as_root pkill -x munged || true
    for _ in $(seq 50); do pgrep -x munged >/dev/null || break; sleep 0.1; done
    rm -f "$state/started-munged"
  fi
  ;;
*) echo "usage: $0 start|stop STATE_DIR" >&2; exit 2 ;;
esac
