// The upstream counts per account and the model it is sent: two public names sending one upstream model on one
// account share its gate, a limit stated for either applies to both, and the smallest stated applies.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { tempDir } from '../support/temp-dir.ts';
import { upstreamRefusals } from './must-hold.ts';
import { CHAT_MODEL, chatAt, mostInWindow, stateLimits } from './support.ts';

const ALT = 'qwx-alt';
const catalogueFile = join(tempDir('tollway-capacity-models-'), 'catalogue.json');
writeFileSync(
  catalogueFile,
  JSON.stringify([
    {
      model: ALT,
      kind: 'chat',
      upstream: 'dashscope',
      upstreamModel: 'qwen3.7-plus',
      ownedBy: 'qwx',
      price: { unit: 'tokens', tiers: [{ maxInputTokens: null, inputPer1k: 800, outputPer1k: 2000 }] },
      capabilities: {},
    },
  ]),
);

describe('two public names, one upstream model', () => {
  // The account allows 60 a minute and 1 a second for qwen3.7-plus, whichever public name the call asked for.
  const t = useHarness({
    sim: { dashscopeRpm: 60 },
    env: { TOLLWAY_CATALOGUE_FILE: catalogueFile, TOLLWAY_QUEUE_WAIT_MS: '60000' },
  });

  it('share the limit stated for one of them', { timeout: 60_000 }, async () => {
    const { h } = t;
    await stateLimits(h, { [ALT]: { rpm: 60 } });
    const token = (await h.token({ name: 'both' })).secret;
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const refusedBefore = upstreamRefusals(h);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => chatAt(h.url, token, undefined, i % 2 ? ALT : CHAT_MODEL)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const at = h.sim
      .requestsTo('/chat/completions')
      .slice(sentBefore)
      .map((r) => r.at);
    expect(at).toHaveLength(6);
    // Paced as one: never two in a second upstream, nothing refused.
    expect(mostInWindow(at, 900)).toBeLessThanOrEqual(1);
    expect(upstreamRefusals(h) - refusedBefore).toBe(0);
    const gates = h.gw.deps.capacity.all();
    expect(gates.map((g) => [g.model, g.effective().rpm])).toEqual([['qwen3.7-plus', 60]]);
  });

  it('the smallest limit stated for any of its names applies', async () => {
    const { h } = t;
    await stateLimits(h, { [CHAT_MODEL]: { rpm: 600, tpm: 90_000 }, [ALT]: { rpm: 30 } });
    expect(h.gw.deps.capacity.all().map((g) => [g.model, g.effective()])).toEqual([
      ['qwen3.7-plus', { rpm: 30, tpm: 90_000, concurrency: null }],
    ]);
    await stateLimits(h, null);
  });
});
