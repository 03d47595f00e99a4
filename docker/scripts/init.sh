#!/usr/bin/env bash
# Fixture init for the Inlet regression env (anchors §2.1 init sequence):
# start tiering, create the fixture tables, wait until the lake holds the
# expected rows, cancel every Flink job (freezes the lake/log split), write
# the tails, wait for KV snapshots, touch SUCCESS.
set -euo pipefail
FLINK=/opt/flink/bin
OUT=/tmp/inlet-init
mkdir -p "$OUT"
until curl -fs http://jobmanager:8081/overview >/dev/null; do sleep 2; done

subst() { sed -e "s|@BOOTSTRAP@|$FLUSS_BOOTSTRAP_SERVERS|g" -e "s|@WAREHOUSE@|$FLUSS_PAIMON_WAREHOUSE|g" \
  -e "s|@S3_ENDPOINT@|$S3_ENDPOINT|g" -e "s|@S3_ACCESS_KEY@|$S3_ACCESS_KEY|g" -e "s|@S3_SECRET_KEY@|$S3_SECRET_KEY|g" "$1" > "$OUT/$(basename "$1")"; }
for f in /opt/inlet/sql/*.sql; do subst "$f"; done

$FLINK/flink run -m jobmanager:8081 -d /opt/flink/opt/fluss-flink-tiering-*.jar \
  --fluss.bootstrap.servers "$FLUSS_BOOTSTRAP_SERVERS" --datalake.format paimon \
  --datalake.paimon.metastore filesystem --datalake.paimon.warehouse "$FLUSS_PAIMON_WAREHOUSE" \
  --datalake.paimon.s3.endpoint "$S3_ENDPOINT" --datalake.paimon.s3.path.style.access true \
  --datalake.paimon.s3.access-key "$S3_ACCESS_KEY" --datalake.paimon.s3.secret-key "$S3_SECRET_KEY"

$FLINK/sql-client.sh -f "$OUT/init.sql"

# Expected lake rows (merged for PK tables), as minifluss/tier_doris_test.go.
want="lake_log=4 lake_cold=3 lake_types=1 lake_part=3 lake_pk=3 lake_pk_multi=9 lake_pk_part=4 lake_pk_cold=3 lake_nested=1 lake_part_int=3 lake_pk_part_int=4 big_log=100000 big_pk=100000 lake_pk_comma=2 lake_pk_ltz=2"
deadline=$((SECONDS + 900))
while :; do
  got=$($FLINK/sql-client.sh -f "$OUT/lake-row-counts.sql" 2>/dev/null | grep -o 'LAKEROWS:[a-z_]*=[0-9]*' | sed 's/LAKEROWS://' | sort | tr '\n' ' ')
  ok=1
  for w in $want; do case " $got " in *" $w "*) ;; *) ok=0 ;; esac; done
  [ $ok = 1 ] && break
  [ $SECONDS -gt $deadline ] && { echo "lake rows not reached: $got" >&2; exit 1; }
  sleep 10
done

# Freeze: cancel every running job (the tiering job).
for id in $(curl -fs http://jobmanager:8081/jobs | grep -o '"id":"[0-9a-f]*","status":"RUNNING"' | cut -d'"' -f4); do
  $FLINK/flink cancel -m jobmanager:8081 "$id"
done

$FLINK/sql-client.sh -f "$OUT/init-tail.sql"

# PK fixtures need KV snapshots (kv.snapshot.interval 10s) under remote.data.dir.
for t in pk_basic pk_types pk_part pk_nested lake_pk lake_pk_multi lake_pk_part lake_pk_cold big_pk; do
  until ls -d "$FLUSS_REMOTE_DIR"/kv/fluss_test/"$t"-*/ >/dev/null 2>&1 && \
        find "$FLUSS_REMOTE_DIR"/kv/fluss_test/"$t"-*/ -type d -name 'snap-*' | grep -q .; do sleep 5; done
done
touch "$OUT/SUCCESS"
sleep infinity
