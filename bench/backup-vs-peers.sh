#!/usr/bin/env bash
# Backs up one tree with Ballast, restic and rclone (those installed) on the same machine in the same
# run, and prints one Markdown table: first backup, unchanged second backup, restore, each in wall
# seconds with the peak resident memory, and whether the restored tree is identical to the source.
#
#   bench/backup-vs-peers.sh [--tree DIR | --jdk | --small N] [--runs N] [--transfers N]
#                            [--endpoint URL --bucket NAME] [--work DIR] [--keep]
#
#   --tree DIR     back up DIR (taken as it is)
#   --jdk          back up /usr/lib/jvm, the machine's JDKs (the default)
#   --small N      generate N files of 1-4 KiB in N/100 folders (seed 1) and back them up
#   --runs N       repeat the whole comparison N times, one table each (default 1)
#   --transfers N  files in flight for Ballast and rclone (default 4, both tools' default)
#   --endpoint URL also run against this S3 endpoint: Ballast --endpoint, rclone and restic's s3
#                  backends, with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY from the environment
#                  (Ballast goes first in odd runs, rclone in even ones, after one untimed
#                  Ballast backup that warms the server up)
#   --bucket NAME  the bucket on --endpoint (default ballast-bench; created by Ballast and rclone)
#   --work DIR     where repositories, copies and restores go (default a new directory in /tmp)
#   --keep         keep the work directory
#
# The tree is read once before timing starts, so every tool finds it in the page cache. restic
# runs with a local repository (RESTIC_PASSWORD is set for it) and rclone copies to a local folder;
# rclone's "restore" copies that folder back. Ballast runs through ./ballast with its default local
# store in a fresh --data-dir; the JVM start is part of every Ballast time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree=""
preset="jdk"
small=0
runs=1
transfers=4
endpoint=""
bucket="ballast-bench"
work=""
keep=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --tree) tree="$2"; preset=""; shift 2 ;;
    --jdk) preset="jdk"; shift ;;
    --small) small="$2"; preset="small"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --transfers) transfers="$2"; shift 2 ;;
    --endpoint) endpoint="$2"; shift 2 ;;
    --bucket) bucket="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "backup-vs-peers: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done

if [[ -z "$work" ]]; then
  work="$(mktemp -d /tmp/backup-bench.XXXXXX)"
fi
mkdir -p "$work"
cleanup() { if [[ "$keep" == 0 ]]; then rm -rf "$work"; fi; }
trap cleanup EXIT

case "$preset" in
  jdk) tree=/usr/lib/jvm ;;
  small)
    tree="$work/small-$small"
    if [[ ! -d "$tree" ]]; then
      python3 - "$tree" "$small" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.txt" % i), "wb") as f:
        f.write(r.randbytes(r.randint(1024, 4096)))
EOF
      # A file changed in the last two seconds is read again by the next backup (its stat could
      # still change within the same clock tick); let the generated tree settle first.
      sleep 2
    fi ;;
esac
if [[ ! -d "$tree" ]]; then
  echo "backup-vs-peers: '$tree' is not a directory" >&2
  exit 2
fi
tree="$(cd "$tree" && pwd)"

files=$(find "$tree" -type f | wc -l)
bytes=$(find "$tree" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
mib=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')

have() { command -v "$1" >/dev/null 2>&1; }
"$root/ballast" --version >/dev/null # builds the CLI once, outside the timings

# time_it NAME CMD... : runs CMD, records "seconds peak-MiB exit" in $work/NAME.time
time_it() {
  local name="$1"; shift
  local t="$work/$name.time"
  set +e
  /usr/bin/time -f "%e %M %x" -o "$t" "$@" >"$work/$name.log" 2>&1
  set -e
  # time(1) writes "Command exited with non-zero status N" before its line when CMD failed.
  tail -1 "$t" | awk '{printf "%.2f %.0f %d\n", $1, $2 / 1024, $3}' > "$t.fmt" && mv "$t.fmt" "$t"
}
cell() { # cell NAME : "12.34 s (456 MiB)" or "failed (exit N)"
  local t="$work/$1.time"
  [[ -f "$t" ]] || { echo "—"; return; }
  read -r s m x < "$t"
  if [[ "$x" != 0 ]]; then echo "failed (exit $x, see $work/$1.log)"; else echo "$s s ($m MiB)"; fi
}
secs() { [[ -f "$work/$1.time" ]] && awk '{print $1}' "$work/$1.time" || echo ""; }
same() { # same DIR : "yes" when DIR holds the same regular files with the same bytes as the tree
  if diff -rq --no-dereference "$tree" "$1" 2>/dev/null | grep -v '^Only in '"$tree"'.*: ' | grep -q .; then
    echo "no"
  elif [[ "$(find "$1" -type f | wc -l)" != "$(find "$tree" -type f ! -type l | wc -l)" ]]; then
    echo "no ($(find "$1" -type f | wc -l) files)"
  else
    echo "yes"
  fi
}

export RESTIC_PASSWORD=bench RESTIC_PROGRESS_FPS=0.1

if [[ -n "$endpoint" ]]; then
  # A server is slower for the first writes it takes (a new bucket, a new store): one untimed backup
  # first, so that no timed run, whichever tool goes first, pays for that.
  sync
  "$root/ballast" backup "$tree" --name "warm-up-$(date +%s)" --endpoint "$endpoint" --bucket "$bucket" \
    --transfers "$transfers" >"$work/s3-warm-up.log" 2>&1 || true
fi

for run in $(seq 1 "$runs"); do
  r="$work/run$run"
  rm -rf "$r"
  mkdir -p "$r"
  find "$tree" -type f -print0 | xargs -0 cat >/dev/null 2>&1 || true

  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  date="$(date -u '+%Y-%m-%d %H:%M UTC')"

  # Every tool starts after a sync, so no tool's run pays for the writeback of what the one before it
  # wrote (Ballast syncs what it writes; restic and rclone leave it to the kernel).
  sync
  time_it "ballast-first-$run" "$root/ballast" backup "$tree" --name bench --data-dir "$r/ballast" --transfers "$transfers"
  time_it "ballast-unchanged-$run" "$root/ballast" backup "$tree" --name bench --data-dir "$r/ballast" --transfers "$transfers"
  time_it "ballast-restore-$run" "$root/ballast" restore bench "$r/ballast-out" --data-dir "$r/ballast" --transfers "$transfers"
  ballast_same="$(same "$r/ballast-out")"

  if have restic; then
    restic init -q -r "$r/restic" >/dev/null
    sync
    time_it "restic-first-$run" restic -q -r "$r/restic" backup "$tree"
    time_it "restic-unchanged-$run" restic -q -r "$r/restic" backup "$tree"
    time_it "restic-restore-$run" restic -q -r "$r/restic" restore latest --target "$r/restic-out"
    restic_same="$(same "$r/restic-out$tree")"
  fi
  if have rclone; then
    sync
    time_it "rclone-first-$run" rclone copy --transfers "$transfers" --links "$tree" "$r/rclone"
    time_it "rclone-unchanged-$run" rclone copy --transfers "$transfers" --links "$tree" "$r/rclone"
    time_it "rclone-restore-$run" rclone copy --transfers "$transfers" --links "$r/rclone" "$r/rclone-out"
  fi

  if [[ -n "$endpoint" ]]; then
    export RCLONE_CONFIG_BENCH_TYPE=s3 RCLONE_CONFIG_BENCH_PROVIDER=Other RCLONE_CONFIG_BENCH_ENDPOINT="$endpoint" \
      RCLONE_CONFIG_BENCH_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-}" RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-}" \
      RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE=true
    prefix="run$run-$(date +%s)"
    s3_ballast() {
      time_it "s3-ballast-first-$run" "$root/ballast" backup "$tree" --name "$prefix" --endpoint "$endpoint" --bucket "$bucket" --transfers "$transfers"
      time_it "s3-ballast-unchanged-$run" "$root/ballast" backup "$tree" --name "$prefix" --endpoint "$endpoint" --bucket "$bucket" --transfers "$transfers"
    }
    s3_rclone() {
      if have rclone; then
        # rclone's S3 client cannot load AWS_CA_BUNDLE with its own transport; it uses the system's CAs.
        time_it "s3-rclone-first-$run" env -u AWS_CA_BUNDLE rclone copy --transfers "$transfers" --links "$tree" \
          "bench:$bucket/rclone-$prefix"
        time_it "s3-rclone-unchanged-$run" env -u AWS_CA_BUNDLE rclone copy --transfers "$transfers" --links "$tree" \
          "bench:$bucket/rclone-$prefix"
      fi
    }
    # The tools take turns going first: a server is often slower for whoever writes to it first (a new
    # bucket, cold caches), and the table would otherwise always charge that to the same tool. Each
    # starts after a sync, so the writeback of the gigabytes the local runs wrote is not charged to
    # whichever S3 run it lands in.
    if (( run % 2 == 1 )); then
      sync; s3_ballast; sync; s3_rclone
    else
      sync; s3_rclone; sync; s3_ballast
    fi
  fi

  echo
  echo "Run $run of $runs, $date, load average $load: $tree ($files files, $mib MiB), --transfers $transfers"
  echo
  echo "| | Ballast (local store) | restic $(restic version 2>/dev/null | awk '{print $2}') (local repository) | rclone $(rclone version 2>/dev/null | awk 'NR==1 {print $2}') (local folder) |"
  echo "| --- | --- | --- | --- |"
  echo "| first backup | $(cell ballast-first-$run) | $(cell restic-first-$run) | $(cell rclone-first-$run) |"
  echo "| unchanged backup | $(cell ballast-unchanged-$run) | $(cell restic-unchanged-$run) | $(cell rclone-unchanged-$run) |"
  echo "| restore | $(cell ballast-restore-$run) | $(cell restic-restore-$run) | $(cell rclone-restore-$run) |"
  echo "| restored tree identical | $ballast_same | ${restic_same:-—} | — |"
  b="$(secs ballast-first-$run)"; rs="$(secs restic-first-$run)"; bu="$(secs ballast-unchanged-$run)"; ru="$(secs restic-unchanged-$run)"
  br="$(secs ballast-restore-$run)"; rr="$(secs restic-restore-$run)"
  if [[ -n "$rs" && -n "$b" ]]; then
    awk -v b="$b" -v r="$rs" -v bu="$bu" -v ru="$ru" -v br="$br" -v rr="$rr" -v n="$files" 'BEGIN {
      printf "| Ballast / restic | %.2f× first (%.0f files/s) | %.2f× unchanged | %.2f× restore |\n", b / r, n / b, bu / ru, br / rr }'
  fi
  if [[ -n "$endpoint" ]]; then
    echo
    echo "| S3 endpoint $endpoint | Ballast | rclone |"
    echo "| --- | --- | --- |"
    echo "| first backup | $(cell s3-ballast-first-$run) | $(cell s3-rclone-first-$run) |"
    echo "| unchanged backup | $(cell s3-ballast-unchanged-$run) | $(cell s3-rclone-unchanged-$run) |"
    sb="$(secs s3-ballast-first-$run)"; sr="$(secs s3-rclone-first-$run)"
    sbu="$(secs s3-ballast-unchanged-$run)"; sru="$(secs s3-rclone-unchanged-$run)"
    if [[ -n "$sb" && -n "$sr" ]]; then
      awk -v b="$sb" -v r="$sr" -v bu="$sbu" -v ru="$sru" -v m="$mib" 'BEGIN {
        printf "| Ballast / rclone | %.2f× rclone'"'"'s throughput (%.1f MiB/s) | %.2f× unchanged |\n", r / b, m / b, bu / ru }'
    fi
  fi
done
if [[ "$keep" == 1 ]]; then
  echo
  echo "Work directory kept: $work"
fi
