#!/usr/bin/env node
// `npm start`: build, then check the bundled example rollouts with the CLI, to show the product working.
// As a demonstration it succeeds whenever the check ran, whatever the check found; the CLI itself keeps
// its exit status (0 clean, 1 problems found, 2 usage or I/O failure).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const step = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

const build = step([join(root, 'scripts/build.mjs')]);
if (build.status !== 0) process.exit(build.status ?? 1);

const check = step([join(root, 'dist/cli.js'), 'check', 'examples']);
const ran = check.status === 0 || check.status === 1;
process.exit(ran ? 0 : (check.status ?? 2));
