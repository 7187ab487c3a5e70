/**
 * A separate process that seeds one account's test space: the concurrency test starts several of these
 * against one database, so the once-only marker is tested across connections and processes, without any
 * in-process cache or lock in between. Usage: node --import tsx seed-child.ts '<database json>' <accountId>
 * Prints `ready`, waits for a line on stdin (the start signal), seeds, prints `done`.
 */
import readline from 'node:readline';
import { type Config, loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { ensureSeeded } from '../../src/features/test-mode/seed.service.ts';

const database = JSON.parse(process.argv[2]!) as Config['database'];
const accountId = process.argv[3]!;
const handle = createDeps({ ...loadConfig({ LOG_LEVEL: 'silent' }), database }, { poolSize: 2 });
const lines = readline.createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();
try {
  await ensureSeeded(handle, accountId);
  process.stdout.write('done\n');
} finally {
  await handle.close();
}
