// Bundles the server (src/main.ts and everything it imports) into one ES module, dist/main.js, with a source map,
// and the entry of its processing threads into dist/processing-worker.js.
// `npm start` runs this first (prestart): it takes about 0.3 s, and the bundle starts in a fraction of the time
// tsx needs to compile each module on load (docs/performance.md, Start time). Packages stay external: they are
// loaded from node_modules as usual. Usage: node scripts/build.js [outdir]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.resolve(root, process.argv[2] ?? 'dist');

await build({
  absWorkingDir: root,
  // The processing threads' entry beside main.js, where src/features/processing/pool/processing-pool.ts looks.
  entryPoints: {
    main: 'src/main.ts',
    'processing-worker': 'src/features/processing/pool/processing.worker.ts',
  },
  outdir,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
