import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Where a frame's code lives: a package, a source file of ours, Node itself, or the VM. */
function area(url: string): string {
  if (!url) return '(native / VM)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const src = /\/(src\/.+)$/.exec(url);
  if (src) return src[1]!;
  return url;
}

/**
 * Self time of a V8 .cpuprofile grouped by area (package / file) and by function, as text tables:
 * enough to see whether time goes to the database driver, validation, JSON, logging or the HTTP adapter.
 */
export function summarizeProfile(file: string, top = 20): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const selfUs = new Map<number, number>();
  if (profile.samples && profile.timeDeltas) {
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i]!;
      selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
    }
  }
  let total = 0;
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    total += us;
    const a = area(url);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${url ? `${area(url)}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const table = (title: string, entries: Map<string, number>) => {
    const rows = [...entries.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    return [
      `| ${title} | self ms | share |`,
      '|---|---:|---:|',
      ...rows.map(
        ([name, us]) => `| ${name} | ${(us / 1000).toFixed(0)} | ${((us / total) * 100).toFixed(1)} % |`,
      ),
    ].join('\n');
  };
  return [
    `Busy CPU time: ${(total / 1e6).toFixed(1)} s (idle excluded).`,
    '',
    table('area', byArea),
    '',
    table('function', byFunction),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts') && process.argv[2]) {
  process.stdout.write(`${summarizeProfile(process.argv[2])}\n`);
}

/**
 * The main thread's profile among those `--cpu-prof` wrote into `dir`: Node names them
 * `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`, the main thread being thread 0 (the server's worker
 * threads write their own).
 */
export function mainThreadProfile(dir: string): string | undefined {
  const file = fs.readdirSync(dir).find((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  return file === undefined ? undefined : `${dir}/${file}`;
}
