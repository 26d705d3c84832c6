#!/usr/bin/env node
// Loads the TypeScript sources through tsx, so a clean clone runs after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (| head) ends output quietly instead of with a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
