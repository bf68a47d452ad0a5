// query.mjs: run one SQL statement with DuckDB (@duckdb/node-api) and print
// its rows as a JSON array of objects on stdout (BIGINT and other values
// that JSON numbers cannot hold exactly are strings). Used by the Parquet
// test of report/tables; installed by .ci/run (npm ci --prefix bench/fleet).
//
//   node bench/fleet/query.mjs "SELECT count(*) AS n FROM 'out/*/sched_slice.parquet'"
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node query.mjs SQL');
  process.exit(2);
}
try {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll(sql);
  process.stdout.write(JSON.stringify(reader.getRowObjectsJson()) + '\n');
} catch (err) {
  console.error(`duckdb: ${err.message.split('\n')[0]}`);
  process.exit(1);
}
