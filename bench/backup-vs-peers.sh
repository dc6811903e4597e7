#!/usr/bin/env bash
# Backs trees up with Ballast, restic, borg and rclone (those installed) on the same machine in the
# same run, and prints one Markdown table per tree, the tools side by side: first backup, second
# backup (of the unchanged tree, or of the tree after a set of changes), restore, each in wall
# seconds with the peak resident memory; the bytes each tool's store holds after the first backup
# and the bytes the second backup added to it; and whether the restored tree is identical to the
# source.
#
#   bench/backup-vs-peers.sh [--jdk] [--small N] [--big] [--m2 N] [--tree DIR]... [--all]
#                            [--runs N] [--transfers N] [--tools LIST] [--borg-compression SPEC]
#                            [--changes N] [--m2-source DIR]
#                            [--endpoint URL --bucket NAME] [--work DIR] [--keep]
#
# Trees (give several to measure them one after another in one run; without any, --jdk):
#   --jdk          /usr/lib/jvm, the machine's JDKs; second backup unchanged
#   --small N      N generated files of 1-4 KiB in N/100 folders (seed 1); second backup unchanged
#   --big          one generated 256 MiB file of random bytes (seed 1), a disk image that changes in
#                  place: ten 4 KiB blocks at scattered 4 KiB-aligned offsets (one in each tenth of
#                  the file, seed 2) are overwritten with random bytes between the two backups
#   --m2 N         a day-to-day source tree: a copy of about N files of a Maven repository
#                  (--m2-source, default ~/.m2/repository; whole artifact-version folders, drawn with
#                  seed 1 until N files are taken), of which --changes files (default 300, seed 3)
#                  are changed between the two backups: half get 1 KiB appended, half have up to
#                  4 KiB overwritten in place at a random offset, all with a new mtime
#   --tree DIR     DIR as it is; second backup unchanged
#   --all          --jdk --small 20000 --big --m2 3000
#
# Options:
#   --runs N       repeat each tree's comparison N times, one table each (default 1); a changing
#                  tree is made anew for each run; with N > 1 a last table gives each timing's
#                  median over the runs and the median Ballast / restic ratio with its range
#   --transfers N  files in flight for Ballast and rclone (default 4, both tools' default)
#   --tools LIST   comma-separated, of ballast,restic,borg,rclone (default: all four; a peer that is
#                  not installed is left out with a note)
#   --borg-compression SPEC  borg create's --compression (default lz4, borg 1.2's default)
#   --endpoint URL also back each tree up to this S3 endpoint and restore it from there: Ballast
#                  --endpoint, restic's s3 backend and rclone's, with AWS_ACCESS_KEY_ID /
#                  AWS_SECRET_ACCESS_KEY from the environment (first backup, unchanged backup,
#                  restore; Ballast goes first in odd runs, rclone in even ones, after one untimed
#                  Ballast backup that warms the server up)
#   --bucket NAME  the bucket on --endpoint (default ballast-bench; created by Ballast and rclone)
#                  The bucket keeps every run's copies until the end (as --work does): about the
#                  tree's size per run for each tool, rclone's uncompressed. scripts/ceph-rgw.sh holds
#                  4 GiB in memory by default, which --all --runs 3 fills (a full OSD answers no write,
#                  and the tools wait on it): start it with CEPH_RGW_MEMSTORE_BYTES=12884901888 then.
#   --work DIR     where repositories, copies and restores go (default a new directory in /tmp)
#   --keep         keep the work directory (and every run's repositories and restores in it);
#                  without it they are removed at the end, not run by run (a run's timed work must
#                  not follow the removal of the last run's files: see where the runs end), so the
#                  work directory needs room for every run's repositories and restores at once
#
# Every tool does its first backup, then the tree is changed (for --big and --m2), then every tool
# does its second backup, then every tool restores the newest backup into an empty folder. The tree
# is read once before timing starts, so every tool finds it in the page cache, and every tool starts
# after a sync, so no run pays for the writeback of what the one before it wrote.
# restic runs with its defaults (a local repository, encrypted, compression auto = zstd where it
# helps; RESTIC_PASSWORD is set). borg runs with a local repository, encryption repokey, and
# --borg-compression (BORG_PASSPHRASE is set; its cache and keys under the work directory).
# rclone copies to a local folder and keeps no history: its second copy replaces changed files in
# place, so what it "added" is the folder's growth, and the bytes it copied again are shown beside.
# rclone's "restore" copies that folder back. Ballast runs through ./ballast with its default local
# store in a fresh --data-dir, with BALLAST_PASSWORD set; when the build has an `init` command
# (`./ballast init --help` exits 0 and prints "Usage: ballast init ...") the store is made by
# `ballast init` first (repository format 3, encrypted), otherwise the backup makes a format-2
# store; the table says which. The JVM start is part of every Ballast time.
# Bytes stored: the sizes of all regular files in the tool's repository, store or folder (Ballast's
# 4 MiB reserve file, indexes and keys included; directories and disk blocks not); the tools' local
# caches elsewhere (restic's, borg's) are not counted. Peak memory: GNU time's %M (maximum resident
# set size).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trees=()
runs=1
transfers=4
tools="ballast,restic,borg,rclone"
borg_compression="lz4"
changes=300
m2_source="$HOME/.m2/repository"
endpoint=""
bucket="ballast-bench"
work=""
keep=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --tree) trees+=("dir:$2"); shift 2 ;;
    --jdk) trees+=("jdk"); shift ;;
    --small) trees+=("small:$2"); shift 2 ;;
    --big) trees+=("big"); shift ;;
    --m2) trees+=("m2:$2"); shift 2 ;;
    --all) trees+=("jdk" "small:20000" "big" "m2:3000"); shift ;;
    --runs) runs="$2"; shift 2 ;;
    --transfers) transfers="$2"; shift 2 ;;
    --tools) tools="$2"; shift 2 ;;
    --borg-compression) borg_compression="$2"; shift 2 ;;
    --changes) changes="$2"; shift 2 ;;
    --m2-source) m2_source="$2"; shift 2 ;;
    --endpoint) endpoint="$2"; shift 2 ;;
    --bucket) bucket="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "backup-vs-peers: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done
if [[ ${#trees[@]} == 0 ]]; then
  trees=("jdk")
fi

have() { command -v "$1" >/dev/null 2>&1; }
selected=()
IFS=',' read -r -a wanted <<<"$tools"
for t in "${wanted[@]}"; do
  case "$t" in
    ballast) selected+=("$t") ;;
    restic | borg | rclone)
      if have "$t"; then selected+=("$t"); else echo "backup-vs-peers: $t is not installed; left out" >&2; fi ;;
    *) echo "backup-vs-peers: unknown tool '$t' in --tools; give some of ballast,restic,borg,rclone" >&2; exit 2 ;;
  esac
done
if [[ ${#selected[@]} == 0 ]]; then
  echo "backup-vs-peers: none of the tools in --tools '$tools' can run" >&2
  exit 2
fi
uses() { [[ " ${selected[*]} " == *" $1 "* ]]; }

if [[ -z "$work" ]]; then
  work="$(mktemp -d /tmp/backup-bench.XXXXXX)"
fi
mkdir -p "$work"
work="$(cd "$work" && pwd)"
cleanup() { if [[ "$keep" == 0 ]]; then rm -rf "$work"; fi; }
trap cleanup EXIT

export RESTIC_PASSWORD=bench RESTIC_PROGRESS_FPS=0.1 RESTIC_CACHE_DIR="$work/restic-cache"
export BORG_PASSPHRASE=bench BORG_BASE_DIR="$work/borg-base"
export BALLAST_PASSWORD=bench

ballast_format=""
if uses ballast; then
  "$root/ballast" --version >/dev/null # builds the CLI once, outside the timings
  # A build without `init` answers `ballast init --help` with the top-level usage and exit 0 as well
  # (picocli takes --help before it looks at the unknown word), so the usage must name `init`.
  if init_help="$("$root/ballast" init --help 2>&1)" && [[ "$init_help" == "Usage: ballast init"* ]]; then
    ballast_init=1
    ballast_format="format 3 (encrypted; made by \`ballast init\`, password from BALLAST_PASSWORD)"
  else
    ballast_init=0
    ballast_format="format 2 (this build has no \`init\` command; the store is not encrypted)"
  fi
fi
version_of() {
  case "$1" in
    ballast) "$root/ballast" --version 2>/dev/null | head -1 | awk '{print $NF}' ;;
    restic) restic version 2>/dev/null | awk '{print $2}' ;;
    borg) borg --version 2>/dev/null | awk '{print $2}' ;;
    rclone) rclone version 2>/dev/null | awk 'NR==1 {print $2}' ;;
  esac
}
header_of() {
  case "$1" in
    ballast) echo "Ballast $(version_of ballast) (local store)" ;;
    restic) echo "restic $(version_of restic) (local repository)" ;;
    borg) echo "borg $(version_of borg) (local repository, $borg_compression)" ;;
    rclone) echo "rclone $(version_of rclone) (local folder)" ;;
  esac
}

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
# secs NAME : the run's wall seconds, or nothing when it failed (a failed run's time is no timing of the
# work: its ratios and medians are left out, not computed from how fast it gave up)
secs() { [[ -f "$work/$1.time" ]] && awk '$3 == 0 {print $1}' "$work/$1.time" || echo ""; }
size_of() { # size_of DIR : the bytes of the regular files under DIR (their sizes, not the disk blocks)
  if [[ -e "$1" ]]; then find "$1" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}'; else echo ""; fi
}
human() { # human BYTES [+] : "263.4 MiB", "812 KiB", "+15.2 MiB"
  [[ -n "$1" ]] || { echo "—"; return; }
  awk -v b="$1" -v s="${2:-}" 'BEGIN {
    sign = (s == "+" && b >= 0) ? "+" : ""
    a = b < 0 ? -b : b
    if (a >= 1048576) printf "%s%.1f MiB\n", sign, b / 1048576
    else if (a >= 1024) printf "%s%.0f KiB\n", sign, b / 1024
    else printf "%s%d B\n", sign, b }'
}
same() { # same DIR : "yes" when DIR holds the same regular files with the same bytes as the tree
  if [[ ! -d "$1" ]]; then
    echo "no (nothing restored)"
  elif diff -rq --no-dereference "$tree" "$1" 2>/dev/null | grep -v '^Only in '"$tree"'.*: ' | grep -q .; then
    echo "no"
  elif [[ "$(find "$1" -type f | wc -l)" != "$(find "$tree" -type f ! -type l | wc -l)" ]]; then
    echo "no ($(find "$1" -type f | wc -l) files)"
  else
    echo "yes"
  fi
}
rclone_copied() { # rclone_copied NAME : the bytes rclone's run NAME transferred, from its final stats
  grep -o '"bytes":[0-9]*' "$work/$1.log" 2>/dev/null | tail -1 | cut -d: -f2
}
rclone_local=(rclone copy --transfers "$transfers" --links --use-json-log --stats-log-level NOTICE)

# The generated trees. Each is made by a fixed seed, so every run and every machine gets the same bytes.
make_small() { # make_small DIR N
  python3 - "$1" "$2" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.txt" % i), "wb") as f:
        f.write(r.randbytes(r.randint(1024, 4096)))
EOF
}
make_big() { # make_big DIR : one 256 MiB file of random bytes
  python3 - "$1" <<'EOF'
import os, random, sys
os.makedirs(sys.argv[1], exist_ok=True)
r = random.Random(1)
with open(os.path.join(sys.argv[1], "disk.img"), "wb") as f:
    for _ in range(256):
        f.write(r.randbytes(1 << 20))
EOF
}
change_big() { # change_big DIR : ten 4 KiB blocks overwritten in place, one in each tenth of the file
  python3 - "$1" <<'EOF'
import os, random, sys
p = os.path.join(sys.argv[1], "disk.img")
r = random.Random(2)
size = os.path.getsize(p)
tenth = size // 10
with open(p, "r+b") as f:
    for i in range(10):
        f.seek(i * tenth + r.randrange(tenth // 4096) * 4096)
        f.write(r.randbytes(4096))
print("10 blocks of 4 KiB changed in 1 file")
EOF
}
make_m2() { # make_m2 SOURCE DIR N : whole artifact-version folders of SOURCE, drawn until N files
  python3 - "$1" "$2" "$3" <<'EOF'
import os, random, shutil, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
folders = sorted(d for d, _, files in os.walk(src) if files)
random.Random(1).shuffle(folders)
taken = 0
for d in folders:
    if taken >= n:
        break
    files = sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f)))
    out = os.path.join(dst, os.path.relpath(d, src))
    os.makedirs(out, exist_ok=True)
    for f in files:
        try:
            shutil.copy2(os.path.join(d, f), os.path.join(out, f))
            taken += 1
        except FileNotFoundError:  # removed since the walk (a build writing to the repository)
            pass
if taken < n:
    sys.exit("backup-vs-peers: %s holds only %d files, fewer than --m2 %d" % (src, taken, n))
EOF
}
change_m2() { # change_m2 DIR N : N files changed, half appended to, half overwritten in place
  python3 - "$1" "$2" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
r = random.Random(3)
chosen = r.sample(files, min(n, len(files)))
changed = 0
for i, p in enumerate(chosen):
    size = os.path.getsize(p)
    with open(p, "r+b") as f:
        if i % 2 == 0 or size == 0:
            f.seek(0, 2)
            f.write(r.randbytes(1024))
        else:
            length = min(4096, size)
            f.seek(r.randrange(size - length + 1))
            f.write(r.randbytes(length))
    changed += 1
print("%d files changed (1 KiB appended to half, up to 4 KiB overwritten in the others)" % changed)
EOF
}

# prepare TREE-SPEC RUN : sets $tree, $label and $change (a command that changes the tree, or "")
prepare() {
  local spec="$1" run="$2"
  change=""
  case "$spec" in
    jdk) tree=/usr/lib/jvm; label="The machine's JDKs" ;;
    dir:*) tree="${spec#dir:}"; label="$tree" ;;
    small:*)
      local n="${spec#small:}"
      tree="$work/small-$n"; label="$n small files"
      if [[ ! -d "$tree" ]]; then
        make_small "$tree" "$n"
        # A file changed in the last two seconds is read again by the next backup (its stat could
        # still change within the same clock tick); let the generated tree settle first.
        sleep 2
      fi ;;
    big)
      tree="$work/big"; label="A 256 MiB file with ten 4 KiB changes"
      rm -rf "$tree"; make_big "$tree"
      change="change_big $tree"
      sleep 2 ;;
    m2:*)
      local n="${spec#m2:}"
      tree="$work/m2-$n"; label="A Maven repository copy ($n files) with $changes changed"
      if [[ ! -d "$work/m2-$n.source" ]]; then
        make_m2 "$m2_source" "$work/m2-$n.source" "$n"
      fi
      rm -rf "$tree"; cp -a "$work/m2-$n.source" "$tree"
      change="change_m2 $tree $changes"
      sleep 2 ;;
  esac
  if [[ ! -d "$tree" ]]; then
    echo "backup-vs-peers: '$tree' is not a directory" >&2
    exit 2
  fi
  tree="$(cd "$tree" && pwd)"
}

first() { # first TOOL RUN-DIR ID
  local tool="$1" r="$2" id="$3"
  case "$tool" in
    ballast)
      if [[ "$ballast_init" == 1 ]]; then
        "$root/ballast" init --data-dir "$r/ballast" >"$work/ballast-init-$id.log" 2>&1 ||
          echo "backup-vs-peers: ballast init failed, see $work/ballast-init-$id.log" >&2
      fi
      sync
      time_it "ballast-first-$id" "$root/ballast" backup "$tree" --name bench --data-dir "$r/ballast" --transfers "$transfers" ;;
    restic)
      restic init -q -r "$r/restic" >/dev/null
      sync
      time_it "restic-first-$id" restic -q -r "$r/restic" backup "$tree" ;;
    borg)
      borg init -e repokey "$r/borg" >"$work/borg-init-$id.log" 2>&1
      sync
      time_it "borg-first-$id" borg create --compression "$borg_compression" "$r/borg::first" "$tree" ;;
    rclone)
      sync
      time_it "rclone-first-$id" "${rclone_local[@]}" "$tree" "$r/rclone" ;;
  esac
}
second() { # second TOOL RUN-DIR ID
  local tool="$1" r="$2" id="$3"
  sync
  case "$tool" in
    ballast) time_it "ballast-second-$id" "$root/ballast" backup "$tree" --name bench --data-dir "$r/ballast" --transfers "$transfers" ;;
    restic) time_it "restic-second-$id" restic -q -r "$r/restic" backup "$tree" ;;
    borg) time_it "borg-second-$id" borg create --compression "$borg_compression" "$r/borg::second" "$tree" ;;
    rclone) time_it "rclone-second-$id" "${rclone_local[@]}" "$tree" "$r/rclone" ;;
  esac
}
restore() { # restore TOOL RUN-DIR ID : restores the newest backup; prints the folder holding the tree
  local tool="$1" r="$2" id="$3"
  sync
  case "$tool" in
    ballast)
      time_it "ballast-restore-$id" "$root/ballast" restore bench "$r/ballast-out" --data-dir "$r/ballast" --transfers "$transfers"
      echo "$r/ballast-out" ;;
    restic)
      time_it "restic-restore-$id" restic -q -r "$r/restic" restore latest --target "$r/restic-out"
      echo "$r/restic-out$tree" ;;
    borg)
      mkdir -p "$r/borg-out"
      time_it "borg-restore-$id" bash -c 'cd "$1" && borg extract "$2"' _ "$r/borg-out" "$r/borg::second"
      echo "$r/borg-out$tree" ;;
    rclone)
      time_it "rclone-restore-$id" "${rclone_local[@]}" "$r/rclone" "$r/rclone-out"
      echo "$r/rclone-out" ;;
  esac
}

s3_format="$ballast_format"
if [[ -n "$endpoint" ]] && uses ballast; then
  if [[ "$ballast_init" == 1 ]]; then
    # A bucket made by an earlier run already holds a store; init then says so, and the runs go on in it.
    if ! "$root/ballast" init --endpoint "$endpoint" --bucket "$bucket" >"$work/s3-init.log" 2>&1; then
      s3_format="the store already in bucket $bucket (\`ballast init\` did not make one: $(head -1 "$work/s3-init.log"))"
    fi
  fi
  # A server is slower for the first writes it takes (a new bucket, a new store): one untimed backup
  # first, so that no timed run, whichever tool goes first, pays for that.
  prepare "${trees[0]}" 0
  sync
  "$root/ballast" backup "$tree" --name "warm-up-$(date +%s)" --endpoint "$endpoint" --bucket "$bucket" \
    --transfers "$transfers" >"$work/s3-warm-up.log" 2>&1 || true
fi

started=$SECONDS
for spec in "${trees[@]}"; do
  for run in $(seq 1 "$runs"); do
    id="${spec//[:\/]/-}-$run"
    r="$work/run-$id"
    rm -rf "$r"
    mkdir -p "$r"
    tree_started=$SECONDS
    prepare "$spec" "$run"
    files=$(find "$tree" -type f | wc -l)
    bytes=$(find "$tree" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    mib=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')
    find "$tree" -type f -print0 | xargs -0 cat >/dev/null 2>&1 || true

    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    date="$(date -u '+%Y-%m-%d %H:%M UTC')"

    declare -A stored=() added=() out=()
    for tool in "${selected[@]}"; do
      first "$tool" "$r" "$id"
      stored[$tool]="$(size_of "$r/$tool")"
    done
    what="unchanged"
    if [[ -n "$change" ]]; then
      what="$($change)"
      # A file changed in the last two seconds is read again by the next backup; let it settle.
      sleep 2
      find "$tree" -type f -print0 | xargs -0 cat >/dev/null 2>&1 || true
    fi
    for tool in "${selected[@]}"; do
      second "$tool" "$r" "$id"
      after="$(size_of "$r/$tool")"
      if [[ -n "$after" && -n "${stored[$tool]}" ]]; then added[$tool]=$((after - stored[$tool])); else added[$tool]=""; fi
    done
    for tool in "${selected[@]}"; do
      out[$tool]="$(restore "$tool" "$r" "$id")"
    done

    row() { # row TITLE FUNCTION : one table row, FUNCTION TOOL giving each cell
      local line="| $1 |"
      for tool in "${selected[@]}"; do line+=" $($2 "$tool") |"; done
      echo "$line"
    }
    c_first() { cell "$1-first-$id"; }
    c_second() { cell "$1-second-$id"; }
    c_restore() { cell "$1-restore-$id"; }
    c_stored() { human "${stored[$1]}"; }
    c_added() {
      local a; a="$(human "${added[$1]}" +)"
      if [[ "$1" == rclone ]]; then
        local copied; copied="$(rclone_copied "rclone-second-$id")"
        if [[ -n "$copied" && "$copied" != 0 ]]; then a+=" (copied $(human "$copied") again in place, no history)"; fi
      fi
      echo "$a"
    }
    c_same() { if [[ "$1" == rclone ]]; then echo "—"; else same "${out[$1]}"; fi; }

    echo
    echo "**$label**, run $run of $runs"
    echo
    echo "$date, load average $load: $tree ($files files, $mib MiB), --transfers $transfers; second backup: $what"
    if uses ballast; then echo "Ballast's store: $ballast_format"; fi
    echo
    line="| |"; sep="| --- |"
    for tool in "${selected[@]}"; do line+=" $(header_of "$tool") |"; sep+=" --- |"; done
    echo "$line"
    echo "$sep"
    row "first backup: wall time (peak RSS)" c_first
    row "stored after the first backup" c_stored
    if [[ -n "$change" ]]; then
      row "second backup, after the changes" c_second
    else
      row "second backup, unchanged" c_second
    fi
    row "added by the second backup" c_added
    row "restore of the second backup" c_restore
    row "restored tree identical" c_same
    if uses ballast && uses restic; then
      b="$(secs ballast-first-$id)"; rs="$(secs restic-first-$id)"; bu="$(secs ballast-second-$id)"; ru="$(secs restic-second-$id)"
      br="$(secs ballast-restore-$id)"; rr="$(secs restic-restore-$id)"
      if [[ -n "$rs" && -n "$b" && -n "$ru" && -n "$bu" && -n "$rr" && -n "$br" ]]; then
        printf '%s\t%s\t%s\t%s\n' "$label" "first backup" "$b" "$rs" "$label" "second backup ($what)" "$bu" "$ru" \
          "$label" "restore" "$br" "$rr" >>"$work/ratios.tsv"
        awk -v b="$b" -v r="$rs" -v bu="$bu" -v ru="$ru" -v br="$br" -v rr="$rr" -v n="$files" \
          -v bs="${stored[ballast]}" -v rs="${stored[restic]}" -v ba="${added[ballast]}" -v ra="${added[restic]}" 'BEGIN {
          printf "| Ballast / restic | %.2f× first (%.0f files/s), %.2f× stored | %.2f× second, %s added | %.2f× restore |\n",
            b / r, n / b, (rs > 0 ? bs / rs : 0), bu / ru, (ra > 0 ? sprintf("%.2f×", ba / ra) : "—"), br / rr }'
      fi
    fi

    if [[ -n "$endpoint" ]]; then
      export RCLONE_CONFIG_BENCH_TYPE=s3 RCLONE_CONFIG_BENCH_PROVIDER=Other RCLONE_CONFIG_BENCH_ENDPOINT="$endpoint" \
        RCLONE_CONFIG_BENCH_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-}" RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-}" \
        RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE=true
      prefix="$id-$(date +%s)"
      s3_ballast() {
        if uses ballast; then
          time_it "s3-ballast-first-$id" "$root/ballast" backup "$tree" --name "$prefix" --endpoint "$endpoint" --bucket "$bucket" --transfers "$transfers"
          time_it "s3-ballast-unchanged-$id" "$root/ballast" backup "$tree" --name "$prefix" --endpoint "$endpoint" --bucket "$bucket" --transfers "$transfers"
        fi
      }
      # restic's s3 backend reads the same AWS_* variables; it takes a CA bundle as --cacert.
      restic_s3=(restic -q -r "s3:$endpoint/$bucket/restic-$prefix")
      if [[ -n "${AWS_CA_BUNDLE:-}" ]]; then restic_s3+=(--cacert "$AWS_CA_BUNDLE"); fi
      s3_restic() {
        if uses restic; then
          "${restic_s3[@]}" init >"$work/s3-restic-init-$id.log" 2>&1 || true
          time_it "s3-restic-first-$id" "${restic_s3[@]}" backup "$tree"
          time_it "s3-restic-unchanged-$id" "${restic_s3[@]}" backup "$tree"
        fi
      }
      s3_rclone() {
        if uses rclone; then
          # rclone's S3 client cannot load AWS_CA_BUNDLE with its own transport; it uses the system's CAs.
          time_it "s3-rclone-first-$id" env -u AWS_CA_BUNDLE rclone copy --transfers "$transfers" --links "$tree" \
            "bench:$bucket/rclone-$prefix"
          time_it "s3-rclone-unchanged-$id" env -u AWS_CA_BUNDLE rclone copy --transfers "$transfers" --links "$tree" \
            "bench:$bucket/rclone-$prefix"
        fi
      }
      s3_restore() { # s3_restore TOOL : restores what TOOL backed up to the endpoint into an empty folder
        sync
        case "$1" in
          ballast) if uses ballast; then time_it "s3-ballast-restore-$id" "$root/ballast" restore "$prefix" "$r/s3-ballast-out" \
            --endpoint "$endpoint" --bucket "$bucket" --transfers "$transfers"; fi ;;
          restic) if uses restic; then time_it "s3-restic-restore-$id" "${restic_s3[@]}" restore latest --target "$r/s3-restic-out"; fi ;;
          rclone) if uses rclone; then time_it "s3-rclone-restore-$id" env -u AWS_CA_BUNDLE rclone copy --transfers "$transfers" \
            --links "bench:$bucket/rclone-$prefix" "$r/s3-rclone-out"; fi ;;
        esac
      }
      # The tools take turns going first: a server is often slower for whoever writes to it first (a new
      # bucket, cold caches), and the table would otherwise always charge that to the same tool. Each
      # starts after a sync, so the writeback of the gigabytes the local runs wrote is not charged to
      # whichever S3 run it lands in. (A changing tree is backed up as its second local backup left it.)
      order=(ballast restic rclone)
      if (( run % 2 == 0 )); then order=(rclone restic ballast); fi
      for tool in "${order[@]}"; do sync; "s3_$tool"; done
      for tool in "${order[@]}"; do s3_restore "$tool"; done
      s3_same() { if uses "$1" && [[ "$1" != rclone ]]; then same "$2"; else echo "—"; fi; }
      echo
      echo "| S3 endpoint $endpoint | Ballast | restic (s3 backend) | rclone |"
      echo "| --- | --- | --- | --- |"
      echo "| first backup | $(cell s3-ballast-first-$id) | $(cell s3-restic-first-$id) | $(cell s3-rclone-first-$id) |"
      echo "| unchanged backup | $(cell s3-ballast-unchanged-$id) | $(cell s3-restic-unchanged-$id) | $(cell s3-rclone-unchanged-$id) |"
      echo "| restore | $(cell s3-ballast-restore-$id) | $(cell s3-restic-restore-$id) | $(cell s3-rclone-restore-$id) |"
      echo "| restored tree identical | $(s3_same ballast "$r/s3-ballast-out") | $(s3_same restic "$r/s3-restic-out$tree") | — |"
      sb="$(secs s3-ballast-first-$id)"; sr="$(secs s3-rclone-first-$id)"
      sbu="$(secs s3-ballast-unchanged-$id)"; sru="$(secs s3-rclone-unchanged-$id)"
      if [[ -n "$sb" && -n "$sr" && -n "$sbu" && -n "$sru" ]]; then
        awk -v b="$sb" -v r="$sr" -v bu="$sbu" -v ru="$sru" -v m="$mib" 'BEGIN {
          printf "| Ballast / rclone | %.2f× rclone'"'"'s throughput (%.1f MiB/s) | %.2f× unchanged | |\n", r / b, m / b, bu / ru }'
      fi
      st="$(secs s3-restic-first-$id)"; stu="$(secs s3-restic-unchanged-$id)"
      sbr="$(secs s3-ballast-restore-$id)"; str="$(secs s3-restic-restore-$id)"
      if [[ -n "$sb" && -n "$st" && -n "$sbu" && -n "$stu" && -n "$sbr" && -n "$str" ]]; then
        printf '%s\t%s\t%s\t%s\n' "$label" "S3 first backup" "$sb" "$st" "$label" "S3 unchanged backup" "$sbu" "$stu" \
          "$label" "S3 restore" "$sbr" "$str" >>"$work/ratios.tsv"
        awk -v b="$sb" -v r="$st" -v bu="$sbu" -v ru="$stu" -v br="$sbr" -v rr="$str" 'BEGIN {
          printf "| Ballast / restic | %.2f× first | %.2f× unchanged | %.2f× restore |\n", b / r, bu / ru, br / rr }'
      fi
      if uses ballast; then echo; echo "Ballast's S3 store: $s3_format"; fi
    fi
    unset stored added out
    # A run's files stay until the whole comparison ends (the work directory is removed then, unless
    # --keep). ext4 skips an inode freed in the last 5 s, or 300 s while its inode table block is
    # still to be written back, when it allocates one (recently_deleted() in fs/ext4/ialloc.c), and
    # looks at each such free inode again for every file it creates: removing the 80,000 files of a
    # run of --small 20000 made the next run's restores spend up to 4 s more in the kernel, for the
    # tool whose folders landed in the freed block groups (async-profiler; restic's own small-file
    # restore ranged from 3.6 s to 6.1 s across three runs that way).
    echo
    echo "($(( SECONDS - tree_started )) s for this run, making the tree included)"
  done
done
# With several runs, one table more: each timing's median over the runs, Ballast's and restic's, and the
# median of the per-run ratios with their range (a single run on a busy disk can swing either way).
if (( runs > 1 )) && [[ -s "$work/ratios.tsv" ]]; then
  echo
  echo "**Medians over $runs runs** (wall seconds; Ballast / restic: the median of the per-run ratios, lowest–highest)"
  echo
  echo "| tree | timing | Ballast | restic | Ballast / restic |"
  echo "| --- | --- | --- | --- | --- |"
  python3 - "$work/ratios.tsv" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1], encoding="utf-8"):
    tree, timing, b, r = line.rstrip("\n").split("\t")
    rows.setdefault((tree, timing), []).append((float(b), float(r)))
for (tree, timing), pairs in rows.items():
    ratios = [b / r for b, r in pairs if r > 0]
    if not ratios:
        continue
    print("| %s | %s | %.2f s | %.2f s | %.2f× (%.2f–%.2f×, %d runs) |" % (
        tree, timing, statistics.median(b for b, _ in pairs), statistics.median(r for _, r in pairs),
        statistics.median(ratios), min(ratios), max(ratios), len(ratios)))
EOF
fi
echo
echo "All runs: $(( SECONDS - started )) s"
if [[ "$keep" == 1 ]]; then
  echo
  echo "Work directory kept: $work"
fi
