#!/usr/bin/env bash
# memfigure.sh FE_BINARY [ROWS] [EXEC_MEM_LIMIT] [MEM_LIMIT] [KEY]
#
# Issue 25 (5), the closing note's figure: the FE's resident set next to
# what its memory accounts counted, for one hash join whose build side is
# ROWS rows of about 1 KB (default 1500000: 1.5 GB) under exec_mem_limit
# EXEC_MEM_LIMIT (default 2G) and --mem-limit MEM_LIMIT (default 3G),
# joined on KEY: pad (default; the 1 KB string, which the hash table keeps
# a copy of) or id (a BIGINT).
# Build FE_BINARY from the commit to measure (go build -o /tmp/fe ./cmd/fe)
# and run this on a quiet machine; it needs the mariadb client and curl.
# Prints the peak RSS (and its anonymous and file-backed parts, sampled
# every 100 ms) during the join, the accounts' peak, and the answer.
set -euo pipefail
fe=${1:?usage: memfigure.sh FE_BINARY [ROWS] [EXEC_MEM_LIMIT] [MEM_LIMIT] [KEY]}
rows=${2:-1500000}
execlimit=${3:-2G}
memlimit=${4:-3G}
key=${5:-pad}
dir=$(mktemp -d)
qp=$((20000 + RANDOM % 20000))
hp=$((qp + 1))
sql() { mariadb -h127.0.0.1 -P"$qp" -uroot -N -B -e "$1"; }
pid=
startfe() {
	"$fe" --meta-dir "$dir/meta" --data-dir "$dir/data" --query-port "$qp" --http-port "$hp" \
		--flight-sql-port -1 --mem-limit "$memlimit" --log-level error >>"$dir/fe.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do sql 'SELECT 1' >/dev/null 2>&1 && return; sleep 0.2; done
	echo "the FE did not start:" >&2
	cat "$dir/fe.log" >&2
	exit 1
}
stopfe() { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; }
trap 'stopfe; rm -rf "$dir"' EXIT
startfe
sql "CREATE DATABASE f; CREATE TABLE f.d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1;
	INSERT INTO f.d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
	CREATE TABLE f.g (id BIGINT, k BIGINT, pad VARCHAR(1000)) DISTRIBUTED BY HASH(id) BUCKETS 4"
for ((off = 0; off < rows; off += 100000)); do
	id="($off + a.x*10000 + b.x*1000 + c.x*100 + e.x*10 + g.x)"
	sql "INSERT INTO f.g SELECT $id, $id * 7919 % $rows, concat(repeat('p', 990), lpad(cast($id AS VARCHAR), 10, '0'))
		FROM f.d a, f.d b, f.d c, f.d e, f.d g"
done
# A fresh FE over the loaded table: RSS and the accounts' peak are the
# join's alone.
stopfe
startfe
status() { awk -v k="$1" '$1 == k":" { printf "%.0f\n", $2 * 1024 }' "/proc/$pid/status"; }
echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true # restart VmHWM
before=$(status VmRSS)
acc0=$(curl -s "http://127.0.0.1:$hp/metrics" | awk '$1 == "inlet_fe_mem_accounted_peak_bytes" { print $2 }')
(
	peak=0 anon=0 file=0
	while kill -0 "$pid" 2>/dev/null && [ ! -e "$dir/stop" ]; do
		r=$(status VmRSS) a=$(status RssAnon) f=$(status RssFile)
		((r > peak)) && peak=$r
		((a > anon)) && anon=$a
		((f > file)) && file=$f
		echo "$peak $anon $file" >"$dir/rss"
		sleep 0.1
	done
) &
sampler=$!
start=$(date +%s.%N)
answer=$(sql "SET exec_mem_limit = '$execlimit'; SELECT count(*), sum(a.id) FROM f.g a JOIN f.g b ON a.$key = b.$key" 2>&1 || true)
end=$(date +%s.%N)
touch "$dir/stop"
wait "$sampler"
read -r peak anon file <"$dir/rss"
acc=$(curl -s "http://127.0.0.1:$hp/metrics" | awk '$1 == "inlet_fe_mem_accounted_peak_bytes" { print $2 }')
hwm=$(status VmHWM)
mib() { echo $(($1 >> 20)); }
echo "join on $key, rows $rows, exec_mem_limit $execlimit, --mem-limit $memlimit: $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s"
echo "answer: $answer"
echo "RSS before $(mib "$before") MiB; peak $(mib "$peak") MiB sampled (VmHWM $(mib "$hwm") MiB), anon $(mib "$anon") MiB, file $(mib "$file") MiB"
echo "accounted peak $(mib "${acc%.*}") MiB (before the join $(mib "${acc0%.*}") MiB); RSS/accounted $(awk -v r="$hwm" -v a="$acc" 'BEGIN { printf "%.2f", r / a }')"
