// Runs SQL statements given as a JSON array of strings on stdin through
// DuckDB and prints one JSON line per statement:
//   {"columns": [...], "types": [...], "rows": [[cell, ...], ...]}
// Every non-NULL cell is rendered as a string (BigInt and numbers by
// toString) so the Go side decides what is canonical; NULL stays null.
import { DuckDBInstance } from '@duckdb/node-api';

function cell(v) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string': return v;
    case 'bigint': case 'number': case 'boolean': return String(v);
  }
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const statements = JSON.parse(input);

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
for (const sql of statements) {
  let reader;
  try {
    reader = await conn.runAndReadAll(sql);
  } catch (e) {
    process.stderr.write(`duckdb: ${e.message}\nstatement: ${sql}\n`);
    process.exit(1);
  }
  const out = {
    columns: reader.columnNames(),
    types: reader.columnTypes().map((t) => t.toString()),
    rows: reader.getRowsJS().map((r) => r.map(cell)),
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}
