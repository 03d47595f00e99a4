// DuckDB side of cmd/tablebench: one JSON string (an SQL statement) per
// stdin line; one JSON line per statement on stdout:
//   {"ms": <wall time>, "rows": [[cell, ...], ...]} or {"error": "..."}.
import { DuckDBInstance } from '@duckdb/node-api';
import readline from 'node:readline';

function cell(v) {
  if (v === null || v === undefined) return null;
  return typeof v === 'object' ? JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x)) : String(v);
}

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const sql = JSON.parse(line);
  try {
    const t0 = performance.now();
    const reader = await conn.runAndReadAll(sql);
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, rows: reader.getRowsJS().map((r) => r.map(cell)) }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e.message) }) + '\n');
  }
}
