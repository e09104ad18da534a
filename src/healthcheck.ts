// The image's health probe (the Dockerfile's HEALTHCHECK), for either process the image runs: the gateway's
// /healthz on PORT, or — in a container running the upstream simulator (`simulate`) — its /__sim/health on the
// simulator's port (the argument; `simulate`'s default 9090). Exit 0 when one of them answers OK, else 1.
// It imports nothing of the gateway: it starts every few seconds and must start fast.
const TIMEOUT_MS = 2_000;

async function ok(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })).ok;
  } catch {
    return false;
  }
}

const port = process.env.PORT || '8080';
const simPort = process.argv[2] || '9090';
const healthy =
  (await ok(`http://127.0.0.1:${port}/healthz`)) || (await ok(`http://127.0.0.1:${simPort}/__sim/health`));
process.exit(healthy ? 0 : 1);
