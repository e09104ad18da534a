#!/usr/bin/env node
// `tollway`: `serve` (the default) runs the gateway; the other commands are clients of its admin API (src/cli/).
import { runCli } from './cli/program.ts';

runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  env: process.env,
}).then((code) => {
  if (code >= 0) process.exitCode = code;
});
