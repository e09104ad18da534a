#!/usr/bin/env node
// Launcher: load the TypeScript CLI through tsx's loader in this same process, so `tollway` works
// without a build step and signals (SIGTERM/SIGINT) reach the gateway directly (a child process
// would be orphaned when this launcher is killed).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
