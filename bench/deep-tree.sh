#!/usr/bin/env bash
# Times Ballast's backup and restore of chains of nested directories (issue 20, item 10), and how
# long a restore takes to exit after SIGTERM. Prints one Markdown table.
#
#   bench/deep-tree.sh [DEPTH...]        (default: 250 500 1000 2000)
#
# Each chain is DEPTH directories named 'd' one in the other, with a file 100 levels down and one at
# the top; it is backed up into a fresh --data-dir with ./ballast (the JVM start is part of each
# time) and restored into an empty directory, then compared with diff -r. For the SIGTERM column a
# second restore of the deepest chain is started and sent SIGTERM after 1 s: the seconds until it
# exited and its exit code (143 is the documented one).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
depths=("$@")
[[ ${#depths[@]} -gt 0 ]] || depths=(250 500 1000 2000)
work="$(mktemp -d /tmp/ballast-deep-XXXXXX)"
# rm -r resolves each directory relative to its parent, so it deletes a chain in linear time.
trap 'rm -rf "$work"' EXIT

chain() { # DEPTH -> d/d/.../d
  local n=$1 p="d" i
  for ((i = 1; i < n; i++)); do p="$p/d"; done
  printf '%s' "$p"
}

seconds() { # command... -> wall seconds on stdout (the command's output goes to $work/log)
  local start end
  start=$(date +%s.%N)
  "$@" >>"$work/log" 2>&1 || echo "exit $? from: $*" >>"$work/failures"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

"$root/ballast" --help >/dev/null # build once, outside the timings
echo "| depth | backup (s) | restore (s) | identical |"
echo "| --- | --- | --- | --- |"
for depth in "${depths[@]}"; do
  src="$work/src-$depth/s"
  mkdir -p "$src/$(chain "$depth")" "$src/$(chain 100)"
  echo deep >"$src/$(chain 100)/f"
  echo top >"$src/top.txt"
  b=$(seconds "$root/ballast" backup "$src" --data-dir "$work/data-$depth")
  r=$(seconds "$root/ballast" restore s "$work/restore-$depth" --data-dir "$work/data-$depth")
  same=yes
  diff -r "$src" "$work/restore-$depth" >/dev/null 2>&1 || same=no
  echo "| $depth | $b | $r | $same |"
done

deepest="${depths[${#depths[@]}-1]}"
"$root/ballast" restore s "$work/sigterm" --data-dir "$work/data-$deepest" >>"$work/log" 2>&1 &
pid=$!
sleep 1
start=$(date +%s.%N)
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
end=$(date +%s.%N)
echo
echo "SIGTERM 1 s into a restore of the $deepest-deep chain: exited after $(echo "$end - $start" | bc) s with code $code."
[[ ! -f "$work/failures" ]] || { echo; cat "$work/failures"; }
