#!/usr/bin/env bash
# Courier's benchmarks: courier-bench against a raw libcurl multi client in C (discarding what it
# receives, and doing the same work as Courier) and against FoundationNetworking's URLSession, all
# driving the same local nginx. See Benchmarks/README.md for the workloads, what the tables'
# columns mean and the goals of issue 23.
#
#   Benchmarks/run.sh            the full run (5 runs of each client on each workload, ~9 min)
#   Benchmarks/run.sh --quick    smaller counts and 2 runs each, for checking that it all works
#
# Environment:
#   COURIER_BENCH=PATH   run PATH as the "courier" client instead of building courier-bench
#                        (a stand-in: the tables say so)
#   BENCH_RUNS=N         runs of each client on each workload (default 5, 2 with --quick)
#   BENCH_COURIER_FLAGS="--delegate …"  extra courier-bench flags for the GET workloads
#   BENCH_SKIP_VALGRIND=1  leave out the instructions-per-request measurement
#   BENCH_KEEP=1         keep the temporary directory (certificates, nginx config and logs, raw
#                        results) instead of removing it
#
# Everything runs on 127.0.0.1. nginx is started as this script's child and stopped on exit.
# The tables are printed at the end and also written to Benchmarks/.build/latest-results.md; the
# chart of Courier's ratio to each baseline goes to Benchmarks/.build/ratios.svg.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
die() {
    echo "run.sh: $*" >&2
    exit 1
}
say() { printf '==> %s\n' "$*" >&2; }

quick=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown argument '$arg' (try --help)" ;;
    esac
done

# ---------------------------------------------------------------------------------------------
# Sizes and counts.

if [ "$quick" -eq 1 ]; then
    runs="${BENCH_RUNS:-2}"
    small_n=5000 # 1 KiB GETs, plain and TLS
    medium_n=500 # 64 KiB GETs
    vg_n1=500 vg_n2=1000
    mode_label="--quick"
else
    runs="${BENCH_RUNS:-5}"
    small_n=50000
    medium_n=2000
    vg_n1=2000 vg_n2=4000
    mode_label="full"
fi
queued_n=10000 # requests added to a queue before go(), for its memory per request
in_flight=16
big_size=$((1024 * 1024 * 1024)) # the download
upload_size=$((256 * 1024 * 1024))
per_run_timeout=600 # seconds; a client that takes longer is stopped and its run counts as failed
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number, not '$runs'"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# ---------------------------------------------------------------------------------------------
# Tools.

say "scripts/setup.sh --tests (libcurl, nginx, openssl, …)"
"$root/scripts/setup.sh" --tests

need_packages=()
command -v valgrind >/dev/null 2>&1 || need_packages+=(valgrind)
[ -x /usr/bin/time ] || need_packages+=(time)
command -v gcc >/dev/null 2>&1 || need_packages+=(gcc)
command -v python3 >/dev/null 2>&1 || need_packages+=(python3)
command -v gnuplot >/dev/null 2>&1 || need_packages+=(gnuplot-nox) # the chart
if [ ${#need_packages[@]} -gt 0 ]; then
    say "installing ${need_packages[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_packages[@]}" >/dev/null
fi
nginx_bin="$(command -v nginx || true)"
[ -n "$nginx_bin" ] || nginx_bin=/usr/sbin/nginx
[ -x "$nginx_bin" ] || die "nginx not found after scripts/setup.sh"
for tool in openssl curl-config gcc gnuplot python3 swift timeout truncate; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done

# ---------------------------------------------------------------------------------------------
# A temporary directory for everything, and the clean-up that removes it and stops nginx.

work="$(mktemp -d "${TMPDIR:-/tmp}/courier-bench.XXXXXX")"
nginx_pid=""
cleanup() {
    local status=$?
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$nginx_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        echo "run.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Builds. courier-bench from this package (or the stand-in), the two baselines.

bin="$here/.build"
mkdir -p "$bin"

if [ -n "${COURIER_BENCH:-}" ]; then
    [ -x "$COURIER_BENCH" ] || die "COURIER_BENCH=$COURIER_BENCH is not an executable"
    courier_bin="$(cd "$(dirname "$COURIER_BENCH")" && pwd)/$(basename "$COURIER_BENCH")"
    courier_label="STAND-IN: COURIER_BENCH=$courier_bin, not courier-bench"
    say "courier column: $courier_label"
else
    say "swift build -c release --product courier-bench"
    (cd "$root" && swift build -c release --product courier-bench) >"$work/build-courier.log" 2>&1 || {
        tail -n 40 "$work/build-courier.log" >&2
        die "building courier-bench failed (set COURIER_BENCH=PATH to run a stand-in)"
    }
    courier_bin="$(cd "$root" && swift build -c release --show-bin-path)/courier-bench"
    [ -x "$courier_bin" ] || die "no courier-bench at $courier_bin"
    courier_label="courier-bench, release build of $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$root" && git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' + uncommitted changes')"
fi

say "gcc -O2 baselines/curl-multi.c"
gcc -O2 -Wall -Wextra -o "$bin/curl-multi" "$here/baselines/curl-multi.c" -lcurl
curl_bin="$bin/curl-multi"

say "swift build -c release (baselines/URLSessionClient)"
urlsession_pkg="$here/baselines/URLSessionClient"
(cd "$urlsession_pkg" && swift build -c release) >"$work/build-urlsession.log" 2>&1 || {
    tail -n 40 "$work/build-urlsession.log" >&2
    die "building urlsession-bench failed"
}
urlsession_bin="$(cd "$urlsession_pkg" && swift build -c release --show-bin-path)/urlsession-bench"

# ---------------------------------------------------------------------------------------------
# Certificates: a CA, and a server certificate for localhost and 127.0.0.1 that it signed.

say "certificates, data files, nginx"
certs="$work/certs"
mkdir -p "$certs"
(
    cd "$certs"
    newkey=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${newkey[@]}" -keyout ca.key -out ca.pem -days 2 \
        -subj "/CN=Courier Benchmark CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -new "${newkey[@]}" -keyout server.key -out server.csr -subj "/CN=localhost"
    printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=CA:FALSE" \
        "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 2 -days 2 \
        -extfile server.ext -out server.pem
) >"$work/openssl.log" 2>&1 || {
    cat "$work/openssl.log" >&2
    die "openssl failed"
}

# How the TLS workload trusts that CA. FoundationNetworking on Linux has no way to turn checks
# off or to name a CA file, and libcurl (the library, unlike the curl tool) reads neither
# CURL_CA_BUNDLE nor SSL_CERT_FILE: all three clients use libcurl's built-in CA bundle. So each
# client of that workload runs in a private mount namespace (unshare -m) where that one file is
# our CA, bind-mounted over it: every client checks the certificate and host name in full, and
# nothing outside that process sees the change. Where unshare is not allowed, the two libcurl
# clients fall back to BENCH_INSECURE=1 and URLSession is left out of the TLS workload.
system_ca="$(curl-config --ca 2>/dev/null || true)"
tls_mode=insecure
# shellcheck disable=SC2016
if [ -n "$system_ca" ] && [ -f "$system_ca" ] &&
    unshare -m sh -c 'mount --bind "$1" "$2" && cmp -s "$1" "$2"' sh "$certs/ca.pem" "$system_ca" 2>/dev/null; then
    tls_mode=namespace
fi

# ---------------------------------------------------------------------------------------------
# Data: 1 KiB and 64 KiB of random bytes, a sparse 1 GiB file to download, a sparse 256 MiB file
# to upload.

docroot="$work/docroot"
uploads="$work/uploads"
mkdir -p "$docroot" "$uploads" "$work/nginx" "$work/out"
head -c 1024 /dev/urandom >"$docroot/1k"
head -c 65536 /dev/urandom >"$docroot/64k"
truncate -s "$big_size" "$docroot/1g"
truncate -s "$upload_size" "$work/upload-source"

# ---------------------------------------------------------------------------------------------
# nginx: one process (no master), no access log, long keep-alive; HTTP on one port, HTTPS with
# HTTP/2 on another; PUT /upload/NAME stores NAME through WebDAV.

read -r http_port https_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
')

server_body() {
    cat <<EOF
        server_name localhost 127.0.0.1;
        root $docroot;
        location /upload/ {
            alias $uploads/;
            dav_methods PUT;
            create_full_put_path on;
            client_max_body_size 0;
        }
EOF
}

cat >"$work/nginx/nginx.conf" <<EOF
# Written by Benchmarks/run.sh.
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    keepalive_requests 100000;
    keepalive_timeout 300s;
    sendfile on;
    tcp_nodelay on;
    gzip off;
    server {
        listen 127.0.0.1:$http_port;
$(server_body)
    }
    server {
        listen 127.0.0.1:$https_port ssl http2;
        ssl_certificate $certs/server.pem;
        ssl_certificate_key $certs/server.key;
$(server_body)
    }
}
EOF

"$nginx_bin" -t -q -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" ||
    die "nginx rejected its configuration ($work/nginx/nginx.conf)"
"$nginx_bin" -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" \
    </dev/null >"$work/nginx/stdout.log" 2>&1 &
nginx_pid=$!
for _ in $(seq 100); do
    if ! kill -0 "$nginx_pid" 2>/dev/null; then
        cat "$work/nginx/error.log" >&2 || true
        die "nginx exited at start"
    fi
    if curl -fsS -o /dev/null "http://127.0.0.1:$http_port/1k" 2>/dev/null &&
        curl -fsS -o /dev/null --cacert "$certs/ca.pem" "https://localhost:$https_port/1k" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$http_port/1k" || die "nginx does not answer on port $http_port"
curl -fsS -o /dev/null --http2 --cacert "$certs/ca.pem" "https://localhost:$https_port/1k" ||
    die "nginx does not answer HTTPS on port $https_port"
say "nginx (pid $nginx_pid) on 127.0.0.1:$http_port (HTTP/1.1) and :$https_port (TLS, HTTP/2)"

http_url="http://127.0.0.1:$http_port"
https_url="https://localhost:$https_port"

# ---------------------------------------------------------------------------------------------
# One measured run: CLIENT_NAME BINARY TLS(0|1) ARGS… -> appends a line to results.tsv.
# The client's own wall=…; user, sys and peak RSS of the client process from GNU time.

results="$work/results.tsv"
: >"$results"
failures=0

# Courier's receive buffer (CURLOPT_BUFFERSIZE), for the raw libcurl client that uses the same.
big_buffer=$((512 * 1024))

client_binary() {
    case "$1" in
        courier | courier-s3 | courier-s3-headers) echo "$courier_bin" ;;
        curl-multi | curl-multi-512k | curl-multi-same) echo "$curl_bin" ;;
        urlsession) echo "$urlsession_bin" ;;
    esac
}

read -r -a courier_flags <<<"${BENCH_COURIER_FLAGS:-}"

# measure WORKLOAD RUN CLIENT TLS EXPECT_REQUESTS EXPECT_BYTES ARGS…
measure() {
    local workload=$1 run=$2 client=$3 tls=$4 expect_requests=$5 expect_bytes=$6
    shift 6
    local binary out="$work/out/$workload.$client.$run"
    binary="$(client_binary "$client")"
    local -a args=("$@")
    if [ "$client" = courier ] && [ "$1" = get ] && [ ${#courier_flags[@]} -gt 0 ]; then
        args+=("${courier_flags[@]}")
    fi
    # The same GETs as S3ObjectRequests signed with SigV4 (nginx ignores the signature): what
    # signing costs (issue 34's goal: at most 1.15× the unsigned GET).
    [ "$client" != courier-s3 ] || args+=(--s3)
    # The floor under it: plain GETs carrying headers of the same names and lengths, unsigned.
    [ "$client" != courier-s3-headers ] || args+=(--s3-headers)
    local -a env_vars=() wrapper=()
    [ "$client" != curl-multi-512k ] || env_vars+=("BENCH_BUFFERSIZE=$big_buffer")
    [ "$client" != curl-multi-same ] || env_vars+=("BENCH_SAME_WORK=1")
    if [ "$tls" = 1 ]; then
        env_vars+=(BENCH_H2=1)
        if [ "$tls_mode" = namespace ]; then
            # shellcheck disable=SC2016
            wrapper=(unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$certs/ca.pem" "$system_ca")
        else
            env_vars+=(BENCH_INSECURE=1)
        fi
    fi
    local status=0
    "${wrapper[@]}" env "${env_vars[@]}" /usr/bin/time -f "%U %S %M" -o "$out.time" \
        timeout --foreground -k 10 "$per_run_timeout" "$binary" "${args[@]}" >"$out.stdout" 2>"$out.stderr" </dev/null ||
        status=$?
    local line
    line="$(head -n 1 "$out.stdout" 2>/dev/null || true)"
    local requests bytes wall queued
    requests="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")"
    bytes="$(sed -n 's/.* bytes=\([0-9]*\).*/\1/p' <<<"$line")"
    wall="$(sed -n 's/.* wall=\([0-9.]*\).*/\1/p' <<<"$line")"
    queued="$(sed -n 's/.* queued_kib=\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$line")"
    local problem=""
    if [ "$status" -ne 0 ]; then
        problem="exit status $status"
        [ "$status" -eq 124 ] && problem="timed out after ${per_run_timeout}s"
    elif [[ "$line" != ok\ * ]]; then
        problem="no ok line"
    elif [ "$requests" != "$expect_requests" ]; then
        problem="requests=$requests, expected $expect_requests"
    elif [ "$bytes" != "$expect_bytes" ]; then
        problem="bytes=$bytes, expected $expect_bytes"
    elif [ "$1" = queued ] && [ -z "$queued" ]; then
        problem="no queued_kib= on its line"
    fi
    local user sys rss
    read -r user sys rss < <(tail -n 1 "$out.time" 2>/dev/null || echo "0 0 0")
    if [ -n "$problem" ]; then
        failures=$((failures + 1))
        {
            echo "run.sh: FAILED $workload, $client, run $run: $problem"
            echo "    command: $binary ${args[*]}"
            sed 's/^/    stdout: /' "$out.stdout" | head -n 5
            sed 's/^/    stderr: /' "$out.stderr" | head -n 10
        } >&2
        printf '%s\t%s\t%s\tfail\t0\t0\t0\t0\t0\t-\n' "$workload" "$client" "$run" >>"$results"
        return 0
    fi
    printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\n' "$workload" "$client" "$run" \
        "$wall" "$bytes" "$user" "$sys" "$rss" "${queued:--}" >>"$results"
    printf '    %-12s %-15s run %d: wall %ss, cpu %ss+%ss, rss %s KiB\n' "$workload" "$client" "$run" \
        "$wall" "$user" "$sys" "$rss" >&2
}

workloads_tsv="$work/workloads.tsv"
: >"$workloads_tsv"

# workload ID "LABEL" UNIT TLS "CLIENTS" EXPECT_REQUESTS EXPECT_BYTES BEFORE_EACH ARGS…
# Runs every client RUNS times, interleaved: courier, curl-multi, urlsession, courier, …
workload() {
    local id=$1 label=$2 unit=$3 tls=$4 clients=$5 expect_requests=$6 expect_bytes=$7 before=$8
    shift 8
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$unit" "$clients" "$expect_requests" >>"$workloads_tsv"
    say "$label: ${runs} runs each of $clients, interleaved"
    for run in $(seq "$runs"); do
        for client in $clients; do
            $before
            measure "$id" "$run" "$client" "$tls" "$expect_requests" "$expect_bytes" "$@"
        done
    done
}

# Before each run of the big transfers: the last run's file removed and everything on disk, so
# no run pays for another's write-back.
no_setup() { :; }
remove_download() {
    rm -f "$work/download.out"
    sync
}
remove_upload() {
    rm -f "$uploads/blob"
    sync
}
# The files to send read once, so every run finds them in the page cache; and one unmeasured
# transfer of each kind (curl, the tool) before its workload, so that no client's first run pays
# for the first time nginx and the filesystem do it.
cat "$docroot/1g" "$work/upload-source" >/dev/null
warm_up_download() {
    curl -fsS -o "$work/download.out" "$http_url/1g" || die "warm-up download failed"
    remove_download
}
warm_up_upload() {
    curl -fsS -o /dev/null -T "$work/upload-source" "$http_url/upload/blob" || die "warm-up upload failed"
    remove_upload
}

# The machine should be otherwise idle: other work on its two cores shows up in every number.
# busy_cores SECONDS: how many cores' worth of CPU the whole machine used over that time.
busy_cores() {
    python3 - "$1" <<'PYTHON'
import sys, time
def sample():
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]  # total, idle + iowait
t0, i0 = sample()
time.sleep(float(sys.argv[1]))
t1, i1 = sample()
import os
print(f"{(1 - (i1 - i0) / max(t1 - t0, 1)) * os.cpu_count():.2f}")
PYTHON
}
busy_before="$(busy_cores 3)"
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.2 else 1)' "$busy_before"; then
    echo "run.sh: warning: something else is using $busy_before cores: the numbers will be noisy" >&2
fi

all_clients="courier curl-multi urlsession"
# The GETs also run the C client doing Courier's work (its header lines sent, every response
# header line and every body kept), the baseline issue 23's goals are measured against.
get_clients="courier curl-multi curl-multi-same urlsession"
tls_clients="$get_clients"
[ "$tls_mode" = namespace ] || tls_clients="courier curl-multi curl-multi-same"

workload get-1k "GET 1 KiB ×$small_n, $in_flight in flight" req 0 "$get_clients courier-s3 courier-s3-headers" \
    "$small_n" $((small_n * 1024)) no_setup \
    get "$http_url/1k" "$small_n" "$in_flight"
workload get-64k "GET 64 KiB ×$medium_n, $in_flight in flight" req 0 "$get_clients" \
    "$medium_n" $((medium_n * 65536)) no_setup \
    get "$http_url/64k" "$medium_n" "$in_flight"
workload h2-1k "GET 1 KiB ×$small_n over TLS + HTTP/2, $in_flight in flight" req 1 "$tls_clients" \
    "$small_n" $((small_n * 1024)) no_setup \
    get "$https_url/1k" "$small_n" "$in_flight"
warm_up_download
workload download-1g "download 1 GiB to a file" bytes 0 "courier curl-multi curl-multi-512k urlsession" \
    1 "$big_size" remove_download \
    download "$http_url/1g" "$work/download.out"
remove_download
warm_up_upload
workload upload-256m "PUT 256 MiB from a file" bytes 0 "$all_clients" \
    1 "$upload_size" remove_upload \
    upload "$http_url/upload/blob" "$work/upload-source"
remove_upload
# What a queue costs per request it holds: courier-bench adds them all before go() and reports the
# growth of its resident memory in between (queued_kib=), then runs them.
workload queued-10k "$queued_n GETs of 1 KiB queued before go(), then $in_flight in flight" req 0 courier \
    "$queued_n" $((queued_n * 1024)) no_setup \
    queued "$http_url/1k" "$queued_n" "$in_flight"

# ---------------------------------------------------------------------------------------------
# Instructions per request under callgrind: (I(N2) − I(N1)) / (N2 − N1) for `get` of 1 KiB at
# 16 in flight, which cancels what start-up and shut-down cost. --fair-sched=yes hands the CPU
# from thread to thread in turn: with valgrind's default, how long one thread runs before
# another varies from run to run, and with it how many requests each engine turn and each
# callback dispatch carries, which moved Courier's count by ±1,500 instructions per request
# between identical runs (±100 with fair scheduling; the single-threaded C client is unaffected).

valgrind_tsv="$work/valgrind.tsv"
: >"$valgrind_tsv"
if [ "${BENCH_SKIP_VALGRIND:-0}" != 1 ]; then
    say "callgrind: get 1 KiB ×$vg_n1 and ×$vg_n2, $in_flight in flight, courier and both C clients"
    for client in courier courier-s3 courier-s3-headers curl-multi curl-multi-same; do
        same_work=0
        [ "$client" != curl-multi-same ] || same_work=1
        signed=()
        [ "$client" != courier-s3 ] || signed=(--s3)
        [ "$client" != courier-s3-headers ] || signed=(--s3-headers)
        for n in "$vg_n1" "$vg_n2"; do
            out="$work/out/callgrind.$client.$n"
            status=0
            BENCH_SAME_WORK=$same_work timeout -k 10 1200 valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$out.cg" \
                "$(client_binary "$client")" get "$http_url/1k" "$n" "$in_flight" "${signed[@]}" \
                >"$out.stdout" 2>"$out.stderr" </dev/null || status=$?
            total="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out.cg" 2>/dev/null | head -n 1)"
            if [ "$status" -ne 0 ] || [ -z "$total" ] || ! grep -q "^ok requests=$n " "$out.stdout"; then
                failures=$((failures + 1))
                echo "run.sh: FAILED callgrind $client ×$n (exit status $status)" >&2
                sed 's/^/    /' "$out.stdout" | head -n 5 >&2
                tail -n 10 "$out.stderr" | sed 's/^/    /' >&2
                continue
            fi
            printf '%s\t%s\t%s\n' "$client" "$n" "$total" >>"$valgrind_tsv"
            printf '    callgrind %-15s ×%-5s %s instructions\n' "$client" "$n" "$total" >&2
        done
    done
fi

# ---------------------------------------------------------------------------------------------
# The tables.

report="$bin/latest-results.md"
[ ${#courier_flags[@]} -eq 0 ] || courier_label="$courier_label, GETs with ${courier_flags[*]}"
chart="$bin/ratios.svg"
rm -f "$chart"
python3 - "$results" "$workloads_tsv" "$valgrind_tsv" "$runs" "$courier_label" "$tls_mode" \
    "$vg_n1" "$vg_n2" "$busy_before" "$(busy_cores 3)" "$chart" "$mode_label" "$work" >"$report" <<'PYTHON'
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone

(results_path, workloads_path, valgrind_path, runs, courier_label, tls_mode, n1, n2,
 busy_before, busy_after, chart_path, mode_label, work) = sys.argv[1:]
runs = int(runs)

def command_output(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return "?"

rows = {}
for line in open(results_path):
    workload, client, run, status, wall, nbytes, user, sys_, rss, queued = line.rstrip("\n").split("\t")
    rows.setdefault((workload, client), []).append(
        dict(ok=status == "ok", wall=float(wall), bytes=int(nbytes), cpu=float(user) + float(sys_), rss=int(rss),
             queued=None if queued == "-" else int(queued)))

workloads = []
for line in open(workloads_path):
    wid, label, unit, clients, count = line.rstrip("\n").split("\t")
    workloads.append((wid, label, unit, clients.split(), int(count)))
counts_of = {wid: count for wid, _, _, _, count in workloads}

names = {"courier": "Courier", "courier-s3": "Courier, signed for S3 (SigV4)",
         "courier-s3-headers": "Courier, the signed headers sent unsigned",
         "curl-multi": "raw libcurl (C)", "urlsession": "URLSession",
         "curl-multi-512k": "raw libcurl (C), 512 KiB buffer",
         "curl-multi-same": "raw libcurl (C), same work"}

def summary(wid, client):
    runs_ = rows.get((wid, client), [])
    good = [r for r in runs_ if r["ok"]]
    if not good:
        return None
    queued = [r["queued"] for r in good if r["queued"] is not None]
    return dict(
        n=len(good), total=len(runs_),
        wall=statistics.median(r["wall"] for r in good),
        wall_min=min(r["wall"] for r in good), wall_max=max(r["wall"] for r in good),
        cpu=statistics.median(r["cpu"] for r in good),
        rss=max(r["rss"] for r in good) / 1024.0,
        bytes=good[0]["bytes"],
        queued=statistics.median(queued) if queued else None)

def rate(s, unit, label_count):
    if unit == "req":
        return f"{label_count / s['wall']:,.0f} req/s"
    return f"{s['bytes'] / s['wall'] / 1e6:,.0f} MB/s"

out = []
now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
cpu = command_output("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
out.append(f"Run {now} on {command_output('nproc')} cores ({cpu.strip()}), "
           f"{command_output('sh', '-c', 'curl-config --version')}, "
           f"{command_output('sh', '-c', 'nginx -v 2>&1').replace('nginx version: ', '')}, "
           f"{command_output('sh', '-c', 'swift --version 2>/dev/null | head -n 1')}; "
           f"other CPU use: {busy_before} cores busy just before the runs, {busy_after} just after.")
out.append("")
out.append(f"Courier column: {courier_label}.")
tls_note = ("every client checks the test CA's certificate (libcurl's CA file bind-mounted over in a private "
            "mount namespace)" if tls_mode == "namespace" else
            "BENCH_INSECURE=1 for Courier and raw libcurl; URLSession left out (unshare not allowed here)")
out.append(f"{runs} runs of each client per workload ({mode_label} run), interleaved. TLS: {tls_note}.")
out.append("")
out.append("| workload | client | wall s, median (min–max) | rate | CPU s | peak RSS MiB |")
out.append("|---|---|---|---|---|---|")
sums_of = {}
for wid, label, unit, clients, count in workloads:
    sums = {}
    for client in clients:
        s = summary(wid, client)
        sums[client] = s
        if s is None:
            out.append(f"| {label} | {names[client]} | all {len(rows.get((wid, client), []))} runs failed | | | |")
            continue
        failed = "" if s["n"] == s["total"] else f" ({s['total'] - s['n']} of {s['total']} runs failed)"
        out.append(f"| {label} | {names[client]} | {s['wall']:.3f} ({s['wall_min']:.3f}–{s['wall_max']:.3f}){failed} "
                   f"| {rate(s, unit, count)} | {s['cpu']:.2f} | {s['rss']:.1f} |")
    sums_of[wid] = (label, sums)

def ratio(a, b, key):
    if a is None or b is None or b[key] == 0:
        return "–"
    return f"{a[key] / b[key]:.2f}×"

out.append("")
out.append("Ratios of medians (peak RSS: of maxima); below 1 means Courier took less. Same work: the C client "
           "sending Courier's header lines and keeping every header line and body (GETs only).")
out.append("")
out.append("| workload | wall Courier/same work | CPU Courier/same work "
           "| wall Courier/libcurl | CPU Courier/libcurl | RSS Courier/libcurl "
           "| wall Courier/URLSession | CPU Courier/URLSession | RSS Courier/URLSession |")
out.append("|---|---|---|---|---|---|---|---|---|")
for wid, (label, sums) in sums_of.items():
    c, m, l, u = sums.get("courier"), sums.get("curl-multi-same"), sums.get("curl-multi"), sums.get("urlsession")
    if m is None and l is None and u is None:
        continue
    out.append(f"| {label} | {ratio(c, m, 'wall')} | {ratio(c, m, 'cpu')} "
               f"| {ratio(c, l, 'wall')} | {ratio(c, l, 'cpu')} | {ratio(c, l, 'rss')} "
               f"| {ratio(c, u, 'wall')} | {ratio(c, u, 'cpu')} | {ratio(c, u, 'rss')} |")

counts = {}
for line in open(valgrind_path):
    client, n, total = line.split()
    counts[(client, int(n))] = int(total)
n1, n2 = int(n1), int(n2)
per = {}
if counts:
    out.append("")
    out.append(f"Instructions per request (callgrind --fair-sched=yes, user space only): GET 1 KiB at 16 "
               f"in flight, (I({n2}) − I({n1})) / {n2 - n1}.")
    out.append("")
    out.append(f"| client | instructions, ×{n1} | instructions, ×{n2} | per request | Courier/this |")
    out.append("|---|---|---|---|---|")
    for client in ("courier", "courier-s3", "courier-s3-headers", "curl-multi-same", "curl-multi"):
        a, b = counts.get((client, n1)), counts.get((client, n2))
        if a is not None and b is not None:
            per[client] = (b - a) / (n2 - n1)
    for client in ("courier", "courier-s3", "courier-s3-headers", "curl-multi-same", "curl-multi"):
        a, b = counts.get((client, n1)), counts.get((client, n2))
        if client not in per:
            out.append(f"| {names[client]} | {a or 'failed'} | {b or 'failed'} | – | – |")
            continue
        versus = f"{per['courier'] / per[client]:.2f}×" if "courier" in per else "–"
        out.append(f"| {names[client]} | {a:,} | {b:,} | {per[client]:,.0f} | {versus} |")

# ---- The goals of issues 23 and 33: each a ratio (or a figure) from this one run.
def get(wid, client):
    return sums_of.get(wid, (None, {}))[1].get(client)

def rate_ratio(wid, baseline):
    """Courier's rate over the baseline's: the baseline's median wall over Courier's."""
    c, b = get(wid, "courier"), get(wid, baseline)
    if c is None or b is None or c["wall"] == 0:
        return None
    return b["wall"] / c["wall"]

def rate_text(wid, client):
    s = get(wid, client)
    if s is None:
        return "–"
    unit = next(u for w, _, u, _, _ in workloads if w == wid)
    return rate(s, unit, counts_of[wid])

goals = []  # (workload, goal text, Courier, baseline, measured, held or None)
def rate_goal(label, wid, baseline, at_least):
    r = rate_ratio(wid, baseline)
    goals.append((label, f"≥ {at_least:.2f}× {names[baseline]}", rate_text(wid, "courier"),
                  rate_text(wid, baseline), "–" if r is None else f"{r:.2f}×", None if r is None else r >= at_least))

rate_goal(f"1 KiB GETs, 16 in flight", "get-1k", "curl-multi-same", 0.85)
if "courier" in per and "curl-multi-same" in per:
    r = per["courier"] / per["curl-multi-same"]
    goals.append(("instructions per 1 KiB GET (callgrind)", "≤ 1.25× same work", f"{per['courier']:,.0f}",
                  f"{per['curl-multi-same']:,.0f}", f"{r:.2f}×", r <= 1.25))
else:
    goals.append(("instructions per 1 KiB GET (callgrind)", "≤ 1.25× same work", "–", "–", "not measured", None))
rate_goal("64 KiB GETs, 16 in flight", "get-64k", "curl-multi-same", 0.95)
rate_goal("1 KiB GETs over TLS + HTTP/2", "h2-1k", "curl-multi-same", 0.85)
rate_goal("1 GiB download to a file", "download-1g", "curl-multi", 1.0)
rate_goal("256 MiB PUT from a file", "upload-256m", "curl-multi", 0.95)
rate_goal("vs URLSession, 1 KiB GETs", "get-1k", "urlsession", 12.0)
# Issue 34: a signed GET costs at most 1.15× an unsigned one (its rate at least 1/1.15 of it).
signed, unsigned = get("get-1k", "courier-s3"), get("get-1k", "courier")
if signed is not None and unsigned is not None and signed["wall"] > 0:
    r = signed["wall"] / unsigned["wall"]
    goals.append(("signed (SigV4) 1 KiB GETs: cost over unsigned", "≤ 1.15× Courier unsigned",
                  rate_text("get-1k", "courier-s3"), rate_text("get-1k", "courier"), f"{r:.2f}×", r <= 1.15))
if "courier-s3" in per and "courier" in per:
    r = per["courier-s3"] / per["courier"]
    goals.append(("signed (SigV4) 1 KiB GET: instructions over unsigned", "≤ 1.15× Courier unsigned",
                  f"{per['courier-s3']:,.0f}", f"{per['courier']:,.0f}", f"{r:.2f}×", r <= 1.15))
    if "courier-s3-headers" in per:
        floor = per["courier-s3-headers"] / per["courier"]
        goals.append(("the floor: the signed headers sent unsigned, over unsigned", "(no goal: what libcurl and "
                      "Courier cost to send ~300 more header bytes)", f"{per['courier-s3-headers']:,.0f}",
                      f"{per['courier']:,.0f}", f"{floor:.2f}×", "floor"))
# The queued workload holds 10,000 requests on purpose: its memory has a goal of its own below.
courier_rss = [(s["rss"], wid) for wid, (label, sums) in sums_of.items()
               if wid != "queued-10k" and (s := sums.get("courier"))]
if courier_rss:
    peak, where = max(courier_rss)
    goals.append(("peak RSS, any workload (the queued one aside)", "< 64 MiB", f"{peak:.1f} MiB ({where})", "–",
                  f"{peak:.1f} MiB", peak < 64))
q = get("queued-10k", "courier")
if q is not None and q["queued"] is not None:
    each = q["queued"] / counts_of["queued-10k"]
    goals.append((f"{counts_of['queued-10k']:,} requests queued before go()", "≤ 4 KiB each (RSS growth / N)",
                  f"{q['queued']:,.0f} KiB in all (peak RSS {q['rss']:.1f} MiB)", "–", f"{each:.2f} KiB each",
                  each <= 4.0))
else:
    goals.append(("10,000 requests queued before go()", "≤ 4 KiB each (RSS growth / N)", "–", "–", "not measured",
                  None))

out.append("")
out.append("Against the goals of issues 23 and 33, in this run (rate ratios: the baseline's median wall over Courier's; "
           "same work: the C client doing Courier's work):")
out.append("")
out.append("| workload | goal | Courier | baseline | measured | |")
out.append("|---|---|---|---|---|---|")
for label, goal, courier, baseline, measured, held in goals:
    verdict = held if isinstance(held, str) else "not measured" if held is None else ("held" if held else "missed")
    out.append(f"| {label} | {goal} | {courier} | {baseline} | {measured} | {verdict} |")
print("\n".join(out))

# ---- The chart: Courier's rate over each baseline's, per workload (and instructions: the baseline's
# count over Courier's, so that above 1 is better for Courier everywhere).
series = [("curl-multi-same", "raw libcurl, same work"), ("curl-multi", "raw libcurl, discarding"),
          ("curl-multi-512k", "raw libcurl, 512 KiB buffer"), ("urlsession", "URLSession")]
chart_rows = []
# Each workload's tick says its goals (for instructions, ≤ 1.25× is a bar of at least 0.8).
for wid, short in (("get-1k", "GET 1 KiB\\ngoals ≥ 0.85× same work,\\n≥ 12× URLSession"),
                   ("get-64k", "GET 64 KiB\\ngoal ≥ 0.95×\\nsame work"),
                   ("h2-1k", "GET 1 KiB, TLS + h2\\ngoal ≥ 0.85×\\nsame work"),
                   ("download-1g", "download 1 GiB\\ngoal ≥ 1×\\ndiscarding"),
                   ("upload-256m", "PUT 256 MiB\\ngoal ≥ 0.95×\\ndiscarding")):
    chart_rows.append((short, [rate_ratio(wid, client) for client, _ in series]))
chart_rows.append(("instructions per GET\\ngoal ≥ 0.8×\\nsame work", [per["curl-multi-same"] / per["courier"] if "courier" in per and
                                         "curl-multi-same" in per else None,
                                         per["curl-multi"] / per["courier"] if "courier" in per and
                                         "curl-multi" in per else None, None, None]))
data_path = os.path.join(work, "ratios.dat")
with open(data_path, "w") as f:
    f.write("workload\t" + "\t".join(f'"{title}"' for _, title in series) + "\n")
    for short, values in chart_rows:
        f.write(f'{short.split(chr(92))[0]}\t' + "\t".join("?" if v is None else f"{v:.4f}" for v in values) + "\n")
# Clustered histograms put cluster i at x = i; the tick labels are set here, where "\n" is a line break.
xtics = ", ".join(f'"{short}" {i}' for i, (short, _) in enumerate(chart_rows))
title = (f"Courier against each baseline: its rate ÷ theirs (instructions: theirs ÷ Courier's); "
         f"{now}, {mode_label} run, medians of {runs}")
script = f"""
set terminal svg size 1100,600 dynamic font "sans,12" background "white"
set output "{chart_path}"
set title "{title}" font "sans,12"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set datafile missing "?"
set datafile separator "\\t"
set logscale y 2
set yrange [0.25:32]
set ytics ("0.25×" 0.25, "0.5×" 0.5, "1× (level)" 1, "2×" 2, "4×" 4, "8×" 8, "16×" 16, "32×" 32)
set grid ytics lc rgb "#dddddd"
set ylabel "Courier ÷ baseline (above 1: Courier ahead)"
set key top right box opaque
set bmargin 5
set xtics nomirror ({xtics}) font "sans,10"
plot "{data_path}" using 2 title columnheader(2) lc rgb "#1f77b4", \\
     "" using 3 title columnheader(3) lc rgb "#9ecae1", \\
     "" using 4 title columnheader(4) lc rgb "#c6dbef", \\
     "" using 5 title columnheader(5) lc rgb "#ff7f0e", \\
     1 notitle with lines lc rgb "black" lw 1.5
"""
result = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
if result.returncode != 0 or not os.path.exists(chart_path):
    print(f"run.sh: gnuplot failed: {result.stderr.strip()}", file=sys.stderr)
PYTHON

echo
cat "$report"
echo
echo "(also in $report)"
if [ -s "$chart" ]; then
    echo "(chart of the ratios: $chart)"
else
    echo "run.sh: no chart was drawn" >&2
    failures=$((failures + 1))
fi
if [ "$failures" -gt 0 ]; then
    die "$failures run(s) failed: see the messages above"
fi
