import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config.ts';
import { ROOT } from './cli-process.ts';

/** The README's configuration table is what operators read: it must name every setting, and only real ones. */
describe('README configuration table', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const documented = [...section.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|/gm)].map((m) => m[1]);

  it('documents every environment variable the service reads', () => {
    const missing = Object.keys(ConfigSchema.shape).filter((name) => !documented.includes(name));
    expect(missing).toEqual([]);
  });

  it('documents no variable the service does not read', () => {
    const unknown = documented.filter((name) => !(name! in ConfigSchema.shape));
    expect(unknown).toEqual([]);
  });
});
