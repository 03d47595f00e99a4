// Node mysql2 side of fe/server TestNodeMySQL2. Reads one JSON document on
// stdin: {"port": N, "cases": [{"name", "sql", "params", "opts"}]}; runs
// every case through .query (text protocol, parameters interpolated by the
// driver) and .execute (COM_STMT_PREPARE + COM_STMT_EXECUTE, the binary
// protocol) on a connection made with the case's options, and prints one
// JSON document: {"<name>": {"query": rows | {"error"}, "execute": ...}}.
// Cells keep mysql2's JS type as a prefix: "n:" number, "s:" string,
// "d:" Date (ISO, UTC), "x:" Buffer (hex), "big:" BigInt, "j:" anything
// else as JSON; NULL is null.
import mysql from 'mysql2/promise';

function cell(v) {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return 'd:' + (isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString());
  if (Buffer.isBuffer(v)) return 'x:' + v.toString('hex');
  switch (typeof v) {
    case 'number': return 'n:' + String(v);
    case 'string': return 's:' + v;
    case 'bigint': return 'big:' + v.toString();
    default: return 'j:' + JSON.stringify(v);
  }
}

// Parameters arrive as JSON; {"date": iso} becomes a Date, {"bigint": "n"}
// a BigInt, so every JS type mysql2 binds can be sent.
function param(p) {
  if (p !== null && typeof p === 'object') {
    if ('date' in p) return new Date(p.date);
    if ('bigint' in p) return BigInt(p.bigint);
  }
  return p;
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { port, cases } = JSON.parse(input);

const conns = new Map();
async function conn(opts) {
  const key = JSON.stringify(opts || {});
  if (!conns.has(key)) {
    conns.set(key, await mysql.createConnection({
      host: '127.0.0.1', port, user: 'root', password: '', timezone: 'Z', rowsAsArray: true, ...(opts || {}),
    }));
  }
  return conns.get(key);
}

const out = {};
for (const c of cases) {
  const cn = await conn(c.opts);
  const params = (c.params || []).map(param);
  const res = {};
  for (const how of ['query', 'execute']) {
    try {
      const [rows] = await cn[how](c.sql, params);
      res[how] = rows.map((r) => r.map(cell));
    } catch (e) {
      res[how] = { error: String(e.message) };
    }
  }
  out[c.name] = res;
}
for (const cn of conns.values()) await cn.end();
process.stdout.write(JSON.stringify(out));
