/**
 * The source of a thread that holds one SQLite connection (better-sqlite3, which is synchronous): every statement
 * of the service runs in such a thread, so a long one (indexing a 2 MB transcript in FTS5, publishing a note's
 * thousands of search passages) never stops the API's event loop. Plain JavaScript evaluated as the worker's script
 * (`new Worker(source, { eval: true })`), so it works the same from the sources (tsx) and from the bundle
 * (dist/main.js); the packages it loads are resolved by the parent and passed as absolute paths, like the sentence
 * model's thread (inference-worker.ts).
 *
 * workerData: `{ file, readonly, pragmas, betterSqlitePath, vectorExtensionPath? }`.
 * Messages in: `{ id, sql, params }` or `{ id, close: true }`. Out: `{ id, rows }` (a statement that returns rows,
 * RETURNING included), `{ id, changes, lastInsertRowid }`, or `{ id, error: { message, code } }`; a close is
 * answered `{ id, closed: true }` once the connection is closed. A connection that could not be opened answers
 * the first statement with the reason (its SQLite code) and the thread ends, so the next statement tries again.
 */
export const SQLITE_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlitePath);

// Prepared statements by SQL text, least recently used first out: preparing is a measurable share of a small
// query. One statement runs at a time on this thread, so a cached statement is never in use twice.
const CACHE_SIZE = 512;
const statements = new Map();
let db;
let openError;

function prepare(sql) {
  let statement = statements.get(sql);
  if (statement) {
    statements.delete(sql);
  } else {
    statement = db.prepare(sql);
    if (statements.size >= CACHE_SIZE) statements.delete(statements.keys().next().value);
  }
  statements.set(sql, statement);
  return statement;
}

// Buffers cross threads as Uint8Array; better-sqlite3 binds Buffers as BLOBs.
function bindable(value) {
  return value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;
}

try {
  db = new Database(workerData.file, { readonly: workerData.readonly });
  for (const pragma of workerData.pragmas) db.pragma(pragma);
  if (workerData.vectorExtensionPath) {
    try {
      db.loadExtension(workerData.vectorExtensionPath);
    } catch {
      // search falls back to exact cosine and says so at start
    }
  }
} catch (err) {
  openError = { message: String((err && err.message) || err), code: (err && err.code) || 'SQLITE_CANTOPEN' };
}

parentPort.on('message', (message) => {
  const { id } = message;
  if (message.close) {
    try {
      db && db.open && db.close();
    } finally {
      parentPort.postMessage({ id, closed: true });
    }
    return;
  }
  if (openError) {
    // Answered with the reason, then this thread ends: the next statement starts one that tries again.
    parentPort.postMessage({ id, error: openError });
    setImmediate(() => process.exit(1));
    return;
  }
  try {
    const statement = prepare(message.sql);
    const params = message.params.map(bindable);
    if (statement.reader) {
      parentPort.postMessage({ id, rows: statement.all(params) });
    } else {
      const { changes, lastInsertRowid } = statement.run(params);
      parentPort.postMessage({ id, changes, lastInsertRowid });
    }
  } catch (err) {
    parentPort.postMessage({
      id,
      error: { message: String((err && err.message) || err), code: err && err.code },
    });
  }
});
`;
