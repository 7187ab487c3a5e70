#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step): tsx compiles them on load.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
