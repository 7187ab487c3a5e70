/**
 * `npm run bench:mcp`: latency of the MCP tools beside the REST operations they wrap, in the same run, against the
 * same server process. Seeds notes into a fresh SQLite database (and a fresh PostgreSQL database when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set), starts the real server as a child process, then sends the
 * requests one at a time, interleaved (REST, MCP current revision, MCP 2025 era, SDK client, REST, …) so that
 * machine noise hits every variant alike, and reports median and p90 latency. Goal (issue 6): MCP adds < 2 ms to
 * the REST median.
 *
 * Knobs (environment): BENCH_NOTES (1000), BENCH_MCP_REQUESTS per variant (1000 for get_note; a fifth of it for
 * search_notes, whose every request takes tens of milliseconds), BENCH_DIALECTS
 * (sqlite,postgres), BENCH_WRITE_DOCS=0 (do not touch docs/performance.md).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createDeps } from '../../src/deps.ts';
import { reindexAll } from '../../src/features/search/index-note.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { seedNotes } from '../api/seed.ts';
import { childDatabase, childEnv, freePort, stopChild, waitForReady } from '../lib/child-server.ts';
import { processCpuMs } from '../lib/process-cpu.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NOTES = Number(process.env.BENCH_NOTES ?? 1000);
const REQUESTS = Number(process.env.BENCH_MCP_REQUESTS ?? 1000);
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is Dialect => d === 'sqlite' || (d === 'postgres' && PG_ADMIN_URL !== undefined));
const MODERN = '2026-07-28';
/** The goal of issue 6: what MCP may add to the REST median, in milliseconds. */
const GOAL_OVERHEAD_MS = 2;

function log(message: string) {
  process.stderr.write(`[bench:mcp] ${message}\n`);
}

/** Our environment without any service setting, plus the given ones. */
/** One question asked both ways: a tool call and the REST request that returns the same JSON. */
interface BenchCase {
  tool: string;
  args: Record<string, unknown>;
  rest: { method: 'GET' | 'POST'; path: string; label: string; body?: unknown };
  /** Timed requests per variant. */
  requests: number;
}

/** One way of asking the same question: a function that performs one request and throws unless it succeeded. */
interface Variant {
  name: string;
  run: () => Promise<void>;
}

async function ok(res: Response, what: string): Promise<string> {
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  if (text.includes('"isError":true')) throw new Error(`${what}: tool error ${text.slice(0, 300)}`);
  return text;
}

/** The variants of one case: REST, MCP over raw HTTP in both eras, and the SDK client (what assistants run). */
function variants(base: string, key: string, c: BenchCase, client: Client): Variant[] {
  const auth = { authorization: `Bearer ${key}` };
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const mcpHeaders = {
    ...auth,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const call = (meta: boolean) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: c.tool, arguments: c.args, ...(meta ? { _meta: envelope } : {}) },
    });
  const modernBody = call(true);
  const legacyBody = call(false);
  return [
    {
      name: `REST \`${c.rest.method} ${c.rest.label}\``,
      run: async () => {
        await ok(
          await fetch(base + c.rest.path, {
            method: c.rest.method,
            headers: c.rest.body ? { ...auth, 'content-type': 'application/json' } : auth,
            body: c.rest.body ? JSON.stringify(c.rest.body) : undefined,
          }),
          c.rest.label,
        );
      },
    },
    {
      name: `MCP \`${c.tool}\`, ${MODERN} (per-request envelope)`,
      run: async () => {
        await ok(
          await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: {
              ...mcpHeaders,
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/call',
              'mcp-name': c.tool,
            },
            body: modernBody,
          }),
          `${c.tool} modern`,
        );
      },
    },
    {
      name: `MCP \`${c.tool}\`, ${LATEST_PROTOCOL_VERSION} (after initialize)`,
      run: async () => {
        await ok(
          await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { ...mcpHeaders, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
            body: legacyBody,
          }),
          `${c.tool} legacy`,
        );
      },
    },
    {
      name: `MCP \`${c.tool}\` through the SDK client (incl. its output validation)`,
      run: async () => {
        const result = await client.callTool({ name: c.tool, arguments: c.args });
        if (result.isError) throw new Error(`${c.tool} via SDK: ${JSON.stringify(result).slice(0, 300)}`);
      },
    },
  ];
}

interface Stats {
  /** Server CPU time per request, ms (undefined without /proc). */
  cpu?: number;
  median: number;
  p90: number;
  /**
   * Median over the rounds of (this variant's latency − REST's latency in the same round): the added cost with
   * the drift of a busy machine paired away. Zero for REST itself.
   */
  pairedDelta: number;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

const warmupOf = (requests: number) => Math.max(10, Math.round(requests / 10));

/**
 * Server CPU per request of each variant: `requests` requests in a row, and the server process's CPU time before
 * and after. Unlike latency, CPU time hardly changes with load from other processes on the machine.
 */
async function serverCpu(list: Variant[], requests: number, pid: number): Promise<(number | undefined)[]> {
  const out: (number | undefined)[] = [];
  for (const v of list) {
    const before = processCpuMs(pid);
    for (let i = 0; i < requests; i++) await v.run();
    const after = processCpuMs(pid);
    out.push(before === undefined || after === undefined ? undefined : (after - before) / requests);
  }
  return out;
}

/**
 * Runs every variant `requests` times, interleaved one request at a time (the first variant, REST, is the
 * reference of each round); returns the latency statistics.
 */
async function measure(list: Variant[], requests: number): Promise<Stats[]> {
  for (let i = 0; i < warmupOf(requests); i++) for (const v of list) await v.run();
  const samples = list.map(() => [] as number[]);
  for (let i = 0; i < requests; i++) {
    for (const [j, v] of list.entries()) {
      const started = performance.now();
      await v.run();
      samples[j]!.push(performance.now() - started);
    }
  }
  const rest = samples[0]!;
  return samples.map((own) => ({
    median: quantile(own, 0.5),
    p90: quantile(own, 0.9),
    pairedDelta: quantile(
      own.map((ms, i) => ms - rest[i]!),
      0.5,
    ),
  }));
}

interface Row {
  case: BenchCase;
  variants: { name: string; stats: Stats }[];
}

async function prepareDatabase(dialect: Dialect, dataDir: string) {
  const { env, database, drop } = await childDatabase(dialect, dataDir, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: 'minutes_bench_mcp',
  });
  const seed = await seedNotes(database, NOTES);
  // Index every seeded note now, as `minutes reindex` would (searches index only a few missing notes on the spot).
  const config = loadConfig({ ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const indexed = await reindexAll(
    createDeps(config, { database: { db: database.db, dialect }, logger: createLogger('warn') }),
  );
  log(`${dialect}: search index of ${indexed.notes} notes built in ${indexed.seconds.toFixed(1)} s`);
  await database.close();
  return { env, seed, drop };
}

async function benchDialect(dialect: Dialect): Promise<{ rows: Row[]; notes: string[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `minutes-bench-mcp-${dialect}-`));
  const children: ChildProcess[] = [];
  log(`${dialect}: seeding ${NOTES} notes…`);
  const db = await prepareDatabase(dialect, dataDir);
  let client: Client | undefined;
  try {
    const port = await freePort();
    const server = spawn(process.execPath, ['bin/minutes.js', 'serve', '--no-worker'], {
      cwd: ROOT,
      env: childEnv({
        ...db.env,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        WORKER: 'false',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // LOG_LEVEL=warn: whatever the server logs (JSON lines on stdout) is worth seeing next to the numbers.
    server.stdout?.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
    server.stderr?.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForReady(base, server);
    client = new Client(
      { name: 'bench', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${db.seed.liveKey}` } },
      }),
    );

    // The seeded notes are word soup over a small vocabulary: no word is rare, so ask for every ranked result.
    const searchBody = { query: 'budget review with the customer', limit: 10, min_relevance: 0 };
    const cases: BenchCase[] = [
      {
        tool: 'search_notes',
        args: searchBody,
        rest: { method: 'POST', path: '/v1/search', label: '/v1/search', body: searchBody },
        requests: Math.max(50, Math.round(REQUESTS / 5)),
      },
      {
        tool: 'get_note',
        // The same JSON as GET /v1/notes/:id: with the transcript (the tool leaves it out by default).
        args: { note_id: db.seed.typicalNoteId, include_transcript: true },
        rest: { method: 'GET', path: `/v1/notes/${db.seed.typicalNoteId}`, label: '/v1/notes/:id' },
        requests: REQUESTS,
      },
    ];
    const notes: string[] = [];
    // Make sure there is something to find before timing.
    const first = await fetch(`${base}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${db.seed.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(searchBody),
    });
    const found = ((await first.json()) as { results?: unknown[] }).results?.length ?? 0;
    if (first.status !== 200 || found === 0)
      throw new Error(`POST /v1/search: ${first.status}, ${found} results`);

    const rows: Row[] = [];
    for (const c of cases) {
      const list = variants(base, db.seed.liveKey, c, client);
      log(`${dialect}: ${c.tool}: ${c.requests} requests per variant, interleaved…`);
      const measured = await measure(list, c.requests);
      const cpu = await serverCpu(list, c.requests, server.pid!);
      for (const [i, m] of measured.entries()) m.cpu = cpu[i];
      rows.push({ case: c, variants: list.map((v, i) => ({ name: v.name, stats: measured[i]! })) });
      for (const [i, v] of list.entries()) {
        log(
          `  ${v.name}: median ${measured[i]!.median.toFixed(2)} ms, p90 ${measured[i]!.p90.toFixed(2)} ms, ` +
            `server CPU ${measured[i]!.cpu?.toFixed(3) ?? '?'} ms/request`,
        );
      }
    }
    return { rows, notes };
  } finally {
    await client?.close().catch(() => {});
    for (const child of children) await stopChild(child);
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function machineFacts(): string {
  const cpus = os.cpus();
  return (
    `${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown model'}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ` +
    `load average ${os.loadavg()[0]!.toFixed(1)} at the end of the run`
  );
}

function section(dialect: Dialect, rows: Row[], notes: string[]): string {
  const lines = [
    `### ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Machine: ${machineFacts()}. ${NOTES.toLocaleString('en-US')} notes in one account; ` +
      `${rows.map((r) => `${r.case.requests} requests per variant for \`${r.case.tool}\``).join(', ')} after a ` +
      'tenth as many warm-up rounds, one at a time over keep-alive connections, variants ' +
      'interleaved; server (child process) and client on the same machine.',
    '',
    '| tool | variant | median ms | p90 ms | median − REST | paired Δ ms | server CPU ms/request | CPU − REST |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;
  for (const row of rows) {
    const rest = row.variants[0]!.stats.median;
    for (const [i, v] of row.variants.entries()) {
      const delta = i === 0 ? '—' : signed(v.stats.median - rest);
      const paired = i === 0 ? '—' : signed(v.stats.pairedDelta);
      const restCpu = row.variants[0]!.stats.cpu;
      const cpu = v.stats.cpu === undefined ? 'n/a' : v.stats.cpu.toFixed(3);
      const cpuDelta =
        i === 0 || v.stats.cpu === undefined || restCpu === undefined ? '—' : signed(v.stats.cpu - restCpu);
      lines.push(
        `| \`${row.case.tool}\` | ${v.name} | ${v.stats.median.toFixed(2)} | ${v.stats.p90.toFixed(2)} | ` +
          `${delta} | ${paired} | ${cpu} | ${cpuDelta} |`,
      );
    }
  }
  // The raw requests (both eras) are what the server adds; the SDK client row adds the client's own work.
  const verdicts = rows.flatMap((r) =>
    [1, 2].map((i) => {
      const overhead = r.variants[i]!.stats.median - r.variants[0]!.stats.median;
      const era = i === 1 ? MODERN : LATEST_PROTOCOL_VERSION;
      return (
        `\`${r.case.tool}\` ${era} ${signed(overhead)} ms, paired ${signed(r.variants[i]!.stats.pairedDelta)} ms ` +
        `(${overhead < GOAL_OVERHEAD_MS ? 'met' : 'missed'})`
      );
    }),
  );
  lines.push(
    '',
    `Goal (MCP adds < ${GOAL_OVERHEAD_MS} ms to the REST median; judged on median − REST): ${verdicts.join(', ')}.`,
  );
  for (const note of notes) lines.push('', note);
  return lines.join('\n');
}

const INTRO = `## MCP

\`npm run bench:mcp\` (sources in \`bench/mcp/\`) measures what the MCP endpoint adds to the REST operation a tool
wraps, in one run against one server process (\`node bin/minutes.js serve --no-worker\`, \`LOG_LEVEL=warn\`,
\`RATE_LIMIT_PER_MINUTE=0\`), on notes seeded like \`bench:api\` does and indexed for search before timing.
Requests go one at a time (latency, not
throughput) and the variants are interleaved request by request, so load from other processes affects them alike:

- **REST**: the operation itself (\`GET /v1/notes/:id\`, \`POST /v1/search\`);
- **MCP, current revision**: a raw \`tools/call\` with the 2026-07-28 per-request envelope;
- **MCP, 2025 era**: a raw \`tools/call\` as a 2025-11-25 client sends it after \`initialize\`;
- **SDK client**: \`client.callTool\` of \`@modelcontextprotocol/client\` pinned to the current revision, which also
  validates the result against the tool's output schema; this is what an assistant's MCP client pays.

\`get_note\` is called with \`include_transcript: true\` so that it returns the same JSON as \`GET /v1/notes/:id\`.
*median − REST* compares the medians; *paired Δ* is the median of the per-round differences (each MCP request minus
the REST request of the same round), which cancels slow drift in machine load. On a busy machine both are
inflated: the MCP path does more CPU work per request (a server instance per request, JSON-RPC validation, the
result serialised twice, as structured content and as text), and CPU contention stretches that work. *Server CPU*
(user + system time of the server process from \`/proc\`, over as many requests per variant run back to back)
is the load-independent measure of what MCP adds; the SDK client's own work is in the client process, not here.
\`search_notes\` and \`POST /v1/search\` get the same query. **Goal:** MCP adds less than ${GOAL_OVERHEAD_MS} ms to the REST median. Knobs: \`BENCH_NOTES\`, \`BENCH_MCP_REQUESTS\`,
\`BENCH_DIALECTS\`, \`BENCH_WRITE_DOCS=0\`. The results below are rewritten by each run.`;

/**
 * Replaces the MCP section of docs/performance.md (between its markers; from its heading when another writer of
 * the shared file dropped the start marker), or appends it. Other sections are left as they are.
 */
function writeDocs(sections: string[]): void {
  const file = path.join(ROOT, 'docs/performance.md');
  const start = '<!-- bench:mcp:start -->';
  const end = '<!-- bench:mcp:end -->';
  const block = `${start}\n${INTRO}\n\n${sections.join('\n\n')}\n${end}`;
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Performance\n';
  let a = text.indexOf(start);
  if (a < 0) a = text.indexOf('\n## MCP\n') + 1 || -1;
  const b = text.indexOf(end);
  text =
    a >= 0 && b > a
      ? text.slice(0, a) + block + text.slice(b + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, text);
  log('wrote the MCP section of docs/performance.md');
}

log(`dialects: ${DIALECTS.join(', ')}${PG_ADMIN_URL ? '' : ' (set BENCH_DATABASE_URL for PostgreSQL)'}`);
const sections: string[] = [];
for (const dialect of DIALECTS) {
  const { rows, notes } = await benchDialect(dialect);
  const text = section(dialect, rows, notes);
  process.stdout.write(`\n${text}\n\n`);
  sections.push(text);
}
if (process.env.BENCH_WRITE_DOCS !== '0') writeDocs(sections);
