// The process's logger: pino JSON lines, redacted twice (known paths, and every registered secret in the line).
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactSecrets } from '../errors/redact.ts';
import { stdoutSink } from './log-sink.ts';

export function makeLogger(level: string, stream: DestinationStream = stdoutSink()): Logger {
  return pino(
    {
      level,
      base: null,
      // Last line of defence: secrets never reach a log line, whatever a caller logged.
      hooks: {
        streamWrite: (s: string) => redactSecrets(s),
      },
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}
