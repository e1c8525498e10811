#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks. Everything lives in one directory DIR:
# the data directory (DIR/data), the server log (DIR/server.log) and the server's Unix socket
# (DIR/.s.PGSQL.5432). The server never listens on TCP (listen_addresses=''), so any number of
# these clusters can run side by side, one per DIR. Authentication is `trust`: whoever can reach the
# socket is the superuser `hcipico`; DIR is mode 0700.
#
#   Tools/pg-cluster.sh start DIR        create the cluster if DIR has none (initdb: superuser hcipico,
#                                        UTF8, locale C), start it, wait until it accepts connections,
#                                        create database hcipico if missing. Already running: no-op.
#   Tools/pg-cluster.sh stop DIR         fast shutdown, waits until the server is gone. Not running: no-op.
#   Tools/pg-cluster.sh restart DIR      stop (if running) and start again on the same data.
#   Tools/pg-cluster.sh status DIR       prints `running (pid N): DIR`, `stopped: DIR` or `no cluster: DIR`;
#                                        exit status 0, 3 or 4 (as pg_ctl status).
#   Tools/pg-cluster.sh url DIR          prints postgres://hcipico@/hcipico?host=DIR
#   Tools/pg-cluster.sh psql DIR [ARGS]  psql -X -v ON_ERROR_STOP=1 as user hcipico on database hcipico
#                                        over DIR's socket, with ARGS (e.g. -c 'select 1', -f file.sql).
#   Tools/pg-cluster.sh destroy DIR      stop if running, then rm -rf DIR. No DIR: no-op.
#
# Running as root: PostgreSQL refuses to run as root, so initdb and the server run as the system user
# `hcipico-test` (no home, no login shell), which this script creates when missing (useradd --system)
# and which then owns DIR. A dedicated user rather than Debian's `postgres`: a test's superuser SQL
# (COPY ... TO PROGRAM) then runs as an account that cannot touch the machine's real clusters.
# The user needs to reach DIR, so every parent directory of DIR must be searchable by others (/tmp is).
# An existing cluster is always run as the owner of DIR/data. Running as any other user: that user
# runs the server itself.
#
# DIR is made absolute and may only contain letters, digits and / . _ + - (it goes unquoted into the
# server's options and into the URL), and it must be short enough for a Unix socket path (<= 90 bytes).
# `start` refuses a DIR that exists, is not empty and holds no cluster of this script; `destroy` only
# deletes a DIR that holds one (or is empty).
#
# PostgreSQL's binaries: PG_BINDIR when set, else the newest /usr/lib/postgresql/*/bin (Debian's
# `postgresql` package; Tools/install-deps.sh test installs it), else initdb on PATH.
set -euo pipefail

me=pg-cluster
service_user=hcipico-test
port=5432
marker=.hcipico-pg-cluster

die() { echo "$me: $*" >&2; exit 1; }
usage() {
    echo "usage: $0 start|stop|restart|status|url|destroy DIR" >&2
    echo "       $0 psql DIR [psql arguments...]" >&2
    exit 64
}

[ $# -ge 2 ] || usage
command=$1
shift
[ -n "$1" ] || die "DIR is empty"
case "$1" in /*) dir=$1 ;; *) dir=$PWD/$1 ;; esac
shift
# Normalise without requiring DIR to exist (realpath -m: no symlink surprises for a missing DIR).
dir=$(realpath -m -- "$dir")
[[ "$dir" =~ ^[A-Za-z0-9/._+-]+$ ]] || die "DIR '$dir' may only contain letters, digits and / . _ + -"
[ "$dir" != / ] || die "DIR may not be /"
[ ${#dir} -le 90 ] || die "DIR '$dir' is too long for a Unix socket path (${#dir} > 90 bytes)"
data=$dir/data
socket=$dir/.s.PGSQL.$port
if [ "$command" != url ] && [ -d "$dir" ] && { [ ! -r "$dir" ] || [ ! -x "$dir" ]; }; then
    die "$dir belongs to $(stat -c %U "$dir") and $(id -un) cannot read it; run this as $(stat -c %U "$dir") or root"
fi

# Connection settings come from the command line only.
unset PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGSERVICE PGSERVICEFILE PGDATA PGPASSWORD PGPASSFILE

find_bindir() {
    if [ -n "${PG_BINDIR:-}" ]; then
        [ -x "$PG_BINDIR/initdb" ] || die "PG_BINDIR=$PG_BINDIR has no initdb"
        echo "$PG_BINDIR"
        return
    fi
    local newest
    newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then
        echo "$newest"
        return
    fi
    local initdb
    initdb=$(command -v initdb 2>/dev/null || true)
    [ -n "$initdb" ] || die "PostgreSQL server binaries not found (apt-get install postgresql, or Tools/install-deps.sh test)"
    dirname "$initdb"
}
bindir=
[ "$command" = url ] || bindir=$(find_bindir)

have_cluster() { [ -f "$data/PG_VERSION" ]; }

# The OS user that runs initdb and the server, and how to run a command as that user.
run_user=$(id -un)
# fd 9 (the lock below) is closed for these: the server must not inherit it and hold the lock forever.
as_user() {
    if [ "$run_user" = "$(id -un)" ]; then
        (cd "$dir" && "$@") 9>&-
    else
        (cd "$dir" && runuser -u "$run_user" -- env HOME="$dir" "$@") 9>&-
    fi
}
pick_user() {
    if have_cluster; then
        run_user=$(stat -c %U "$data")
        if [ "$(id -u)" -ne 0 ] && [ "$run_user" != "$(id -un)" ]; then
            die "the cluster in $dir belongs to $run_user; run this as $run_user or root"
        fi
        [ "$run_user" != root ] || die "the cluster in $dir belongs to root; PostgreSQL will not run as root"
    elif [ "$(id -u)" -eq 0 ]; then
        run_user=$service_user
        if ! id -u "$service_user" >/dev/null 2>&1; then
            useradd --system --user-group --no-create-home --home-dir /nonexistent \
                --shell /usr/sbin/nologin --comment "hcipico throwaway PostgreSQL clusters" "$service_user" \
                || die "cannot create the system user $service_user"
        fi
    fi
}

ctl() { as_user "$bindir/pg_ctl" -D "$data" "$@"; }
is_running() { have_cluster && ctl status >/dev/null 2>&1; }
server_pid() { head -n 1 "$data/postmaster.pid" 2>/dev/null || true; }
psql_admin() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U hcipico "$@"; }

# One pg-cluster.sh at a time per DIR (the lock file is inside DIR, so `destroy` takes it too).
lock() {
    exec 9>>"$dir/.pg-cluster.lock" || die "cannot create $dir/.pg-cluster.lock"
    flock -w 120 9 || die "timed out waiting for another $me on $dir"
}

# DIR must be missing, empty, or one of ours; make it, mark it, give it to the server's user.
prepare_dir() {
    if [ -e "$dir" ]; then
        [ -d "$dir" ] || die "$dir exists and is not a directory"
        if [ ! -e "$dir/$marker" ] && [ -n "$(ls -A "$dir")" ]; then
            die "$dir is not empty and holds no $me cluster; give an empty or missing directory"
        fi
    fi
    mkdir -p "$dir"
    touch "$dir/$marker"
    chmod 0700 "$dir"
    if [ "$run_user" != "$(id -un)" ]; then
        chown -R "$run_user:" "$dir"
        runuser -u "$run_user" -- test -w "$dir" \
            || die "$run_user cannot reach $dir: every parent directory must be searchable by others (chmod o+x)"
    fi
}

initialise() {
    local log
    if ! log=$(as_user "$bindir/initdb" -D "$data" --auth=trust --username=hcipico --encoding=UTF8 \
        --locale=C 2>&1); then
        echo "$log" >&2
        rm -rf "$data"
        die "initdb failed in $data"
    fi
}

start() {
    pick_user
    have_cluster || prepare_dir
    lock
    have_cluster || initialise
    if ! is_running; then
        if ! ctl start -w -t 60 -l "$dir/server.log" -s \
            -o "-k $dir -p $port -c listen_addresses='' -c fsync=on" >/dev/null; then
            echo "$me: pg_ctl start failed; the end of $dir/server.log:" >&2
            tail -n 20 "$dir/server.log" >&2 || true
            exit 1
        fi
    fi
    local tries=0
    until "$bindir/pg_isready" -q -h "$dir" -p "$port" -U hcipico -d postgres; do
        tries=$((tries + 1))
        [ $tries -lt 300 ] || die "the server in $dir did not become ready in 30 s (see $dir/server.log)"
        sleep 0.1
    done
    local exists
    exists=$(psql_admin -d postgres -tAc "select 1 from pg_database where datname = 'hcipico'") \
        || die "cannot query the server in $dir"
    if [ "$exists" != 1 ]; then
        psql_admin -d postgres -c 'create database hcipico' || die "cannot create database hcipico in $dir"
    fi
}

stop() {
    have_cluster || die "no cluster in $dir"
    pick_user
    lock
    if is_running; then
        ctl stop -m fast -w -t 120 -s >/dev/null || die "pg_ctl stop failed in $dir (see $dir/server.log)"
    fi
}

case "$command" in
    start)
        start
        ;;
    stop)
        stop
        ;;
    restart)
        stop
        exec 9>&-
        start
        ;;
    status)
        if ! have_cluster; then
            echo "no cluster: $dir"
            exit 4
        fi
        pick_user
        if is_running; then
            echo "running (pid $(server_pid)): $dir"
        else
            echo "stopped: $dir"
            exit 3
        fi
        ;;
    url)
        echo "postgres://hcipico@/hcipico?host=$dir"
        ;;
    psql)
        have_cluster || die "no cluster in $dir (run: $0 start $dir)"
        [ -S "$socket" ] || die "the cluster in $dir is not running (run: $0 start $dir)"
        exec "$bindir/psql" -X -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U hcipico -d hcipico "$@"
        ;;
    destroy)
        [ -e "$dir" ] || exit 0
        [ -d "$dir" ] || die "$dir is not a directory; not deleting it"
        if [ ! -e "$dir/$marker" ] && ! have_cluster && [ -n "$(ls -A "$dir")" ]; then
            die "$dir holds no $me cluster; not deleting it"
        fi
        if have_cluster; then
            pick_user
            lock
            if is_running; then
                ctl stop -m fast -w -t 120 -s >/dev/null \
                    || ctl stop -m immediate -w -t 60 -s >/dev/null \
                    || die "cannot stop the server in $dir"
            fi
        fi
        rm -rf -- "$dir"
        ;;
    *)
        usage
        ;;
esac
