// DuckDB side of internal/duckrun (cmd/lakebench, cmd/tablebench, cmd/bench). Reads one JSON string (an SQL statement)
// per stdin line, runs it, and prints one JSON line per statement:
//   {"ms": <wall time of the statement>, "rows": [[cell, ...], ...]}
// or {"error": "..."}. Cells are strings (BigInt and numbers by toString),
// NULL stays null.
import { DuckDBInstance } from '@duckdb/node-api';
import readline from 'node:readline';

function cell(v) {
  if (v === null || v === undefined) return null;
  return typeof v === 'object' ? JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x)) : String(v);
}

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
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
