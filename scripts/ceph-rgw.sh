#!/usr/bin/env bash
# A single-node Ceph RADOS Gateway (S3) on loopback, for running the object store contract against a
# production S3 implementation: one monitor, one memstore OSD, one gateway, no authentication between
# them, everything under DIR.
#
#   scripts/ceph-rgw.sh start DIR PORT   start it in DIR (new, empty or made by this script: it is wiped);
#                                        the gateway listens on 127.0.0.1:PORT
#   scripts/ceph-rgw.sh env DIR          print the BALLAST_S3_* variables for it (eval-able)
#   scripts/ceph-rgw.sh stop DIR         stop every daemon started in DIR (DIR is kept, with its logs)
#
# The OSD keeps objects in memory: 4 GiB of them unless CEPH_RGW_MEMSTORE_BYTES says otherwise; a full
# OSD blocks every write (the gateway then answers nothing, and clients time out).
#
# S3 credentials: access key ballast-rgw, secret key ballast-rgw-secret, region us-east-1, path-style
# URLs. The Debian packages ceph-mon, ceph-osd, radosgw and ceph-common are installed when missing (as
# root or through sudo); start fails with a clear message when they cannot be.
set -euo pipefail

readonly ACCESS_KEY=ballast-rgw
readonly SECRET_KEY=ballast-rgw-secret
readonly PACKAGES=(ceph-mon ceph-osd radosgw ceph-common)
readonly COMMANDS=(ceph-mon ceph-osd radosgw ceph radosgw-admin monmaptool ceph-authtool)

usage() {
  sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

log() { printf 'ceph-rgw: %s\n' "$*" >&2; }
die() { printf 'ceph-rgw: %s\n' "$*" >&2; exit 1; }

# Prints the last lines of each file given that exists, so that a failure on a machine whose
# directories are gone afterwards (CI) still shows its cause.
show_logs() {
  local f
  for f in "$@"; do
    [ -s "$f" ] || continue
    printf 'ceph-rgw: ---- last lines of %s ----\n' "$f" >&2
    tail -n 40 "$f" | sed 's/^/ceph-rgw: | /' >&2
  done
}

ensure_packages() {
  local missing=() c
  for c in "${COMMANDS[@]}"; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "missing ${missing[*]}; installing the Debian packages ${PACKAGES[*]} (about a minute)"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "cannot install ${PACKAGES[*]}: not root and no password-less sudo; install them with" \
        "'sudo apt-get install ${PACKAGES[*]}' and run this again"
    fi
  fi
  command -v apt-get >/dev/null 2>&1 \
    || die "cannot install ${PACKAGES[*]}: apt-get not found (the script supports Debian and Ubuntu); install Ceph 16 or later another way"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
      || ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${PACKAGES[@]}" >&2; then
    die "installing ${PACKAGES[*]} with apt-get failed (see above); the RGW cannot start without them"
  fi
  for c in "${COMMANDS[@]}"; do
    command -v "$c" >/dev/null 2>&1 || die "$c is still missing after installing ${PACKAGES[*]}"
  done
}

# A TCP port on 127.0.0.1 that nothing listens on, searched upwards from $1.
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
    p=$((p + 1))
  done
  echo "$p"
}

# Runs "$@" until it succeeds or $1 seconds have passed.
retry_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

gateway_answers() {
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/"
}

stop() {
  local dir=$1 pidfile pid stopped=0
  [ -d "$dir/run" ] || { log "nothing to stop in $dir"; return 0; }
  for pidfile in "$dir"/run/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true
      stopped=$((stopped + 1))
    fi
    rm -f "$pidfile"
  done
  log "stopped $stopped daemon(s) in $dir"
}

print_env() {
  local dir=$1
  [ -f "$dir/endpoint" ] || die "no RGW was started in $dir (no $dir/endpoint)"
  echo "export BALLAST_S3_ENDPOINT=$(cat "$dir/endpoint")"
  echo "export BALLAST_S3_ACCESS_KEY=$ACCESS_KEY"
  echo "export BALLAST_S3_SECRET_KEY=$SECRET_KEY"
  echo "export BALLAST_S3_REGION=us-east-1"
}

start() {
  local dir=$1 port=$2
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "PORT must be 1-65535 but was '$port'"
  ensure_packages
  gateway_answers "$port" && die "something already answers on 127.0.0.1:$port; choose another PORT"
  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -e "$dir/.ceph-rgw" ]; then
    die "$dir is not empty and was not made by this script; pass a new or empty directory"
  fi
  [ -d "$dir/run" ] && stop "$dir"
  rm -rf "$dir"
  mkdir -p "$dir"/{run,log,mon/a,osd,rgw}
  touch "$dir/.ceph-rgw"
  local started=$SECONDS
  local monport fsid
  monport=$(free_port $((30000 + port % 20000)))
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon initial members = a
mon host = v1:127.0.0.1:$monport
auth cluster required = none
auth service required = none
auth client required = none
ms bind ipv4 = true
ms bind ipv6 = false
public addr = 127.0.0.1
cluster addr = 127.0.0.1
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
keyring = $dir/keyring
[mon.a]
mon data = $dir/mon/a
[osd]
osd data = $dir/osd/\$id
osd objectstore = memstore
# The OSD is placed in CRUSH by this script before it starts: on start it would ask the monitor itself,
# and a command sent before it has the monitor's map fails with "wrong fsid" (and the start with it).
osd crush update on start = false
osd class update on start = false
memstore device bytes = ${CEPH_RGW_MEMSTORE_BYTES:-4294967296}
[client.rgw.ballast]
rgw frontends = beast endpoint=127.0.0.1:$port
rgw data = $dir/rgw
CONF
  local conf=(-c "$dir/ceph.conf")
  ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' >/dev/null
  monmaptool --create --addv a "v1:127.0.0.1:$monport" --fsid "$fsid" "$dir/monmap" >/dev/null
  ceph-mon "${conf[@]}" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
  ceph-mon "${conf[@]}" -i a
  # The monitor answers EPERM until it has formed a quorum (of one); only then can an OSD be created.
  retry_for 60 timeout 10 ceph "${conf[@]}" -s \
    || { show_logs "$dir/log/mon.a.log"; die "the monitor did not answer within 60 s; see $dir/log/mon.a.log (last lines above)"; }
  local uuid id
  uuid=$(cat /proc/sys/kernel/random/uuid)
  # A command can still meet the monitor before the client has its map ("problem getting command
  # descriptions", EPERM): try again. 'osd new' with the same UUID gives the same ID, so a retry after a
  # lost answer creates no second OSD.
  local deadline=$((SECONDS + 60))
  until id=$(timeout 10 ceph "${conf[@]}" osd new "$uuid" 2>"$dir/log/osd-new.err"); do
    [ $SECONDS -lt $deadline ] \
      || { show_logs "$dir/log/osd-new.err" "$dir/log/mon.a.log"; die "could not create the OSD; see $dir/log/mon.a.log (last lines above)"; }
    sleep 0.5
  done
  timeout 60 ceph "${conf[@]}" osd crush add "osd.$id" 1 root=default host=ballast >/dev/null 2>&1 \
    || { show_logs "$dir/log/mon.a.log"; die "could not place the OSD in the CRUSH map; see $dir/log/mon.a.log (last lines above)"; }
  mkdir -p "$dir/osd/$id"
  ceph-osd "${conf[@]}" -i "$id" --mkfs --osd-uuid "$uuid" >"$dir/log/osd-mkfs.out" 2>&1 \
    || { show_logs "$dir/log/osd-mkfs.out" "$dir/log/osd.$id.log"; die "could not create the OSD's store; see $dir/log/osd-mkfs.out (last lines above)"; }
  # The OSD's start waits for the monitor's first maps; on a busy machine that can fail once, so it is
  # tried three times before giving up with its log.
  local attempt
  for attempt in 1 2 3; do
    ceph-osd "${conf[@]}" -i "$id" >>"$dir/log/osd.out" 2>&1 && break
    if [ "$attempt" -eq 3 ]; then
      show_logs "$dir/log/osd.out" "$dir/log/osd.$id.log" "$dir/log/mon.a.log"
      die "the OSD did not start after 3 attempts; see $dir/log/osd.$id.log (last lines above)"
    fi
    log "the OSD did not start (attempt $attempt of 3); trying again in 3 s"
    sleep 3
  done
  if ! radosgw "${conf[@]}" -n client.rgw.ballast; then
    show_logs "$dir/log/client.rgw.ballast.log"
    die "the gateway did not start; see $dir/log/client.rgw.ballast.log (last lines above)"
  fi
  if ! retry_for 120 gateway_answers "$port"; then
    show_logs "$dir/log/client.rgw.ballast.log" "$dir/log/osd.$id.log"
    die "the gateway did not answer on 127.0.0.1:$port within 120 s; see $dir/log/client.rgw.ballast.log (last lines above)"
  fi
  timeout 60 radosgw-admin "${conf[@]}" user create --uid=ballast --display-name=ballast \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null \
    || die "could not create the S3 user; see $dir/log/client.admin.log"
  echo "http://127.0.0.1:$port" >"$dir/endpoint"
  log "Ceph RGW $(ceph --version | awk '{print $3}') ready on http://127.0.0.1:$port in $((SECONDS - started)) s" \
    "(access key $ACCESS_KEY, secret key $SECRET_KEY; stop: $0 stop $dir)"
}

[ $# -ge 2 ] || usage
case "$1" in
  start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  env) [ $# -eq 2 ] || usage; print_env "$2" ;;
  *) usage ;;
esac
