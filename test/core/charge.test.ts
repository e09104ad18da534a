import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { chargeImages, chargeTokens } from '../../src/core/charge.ts';
import { estimateUsage, inputSize, textReservation } from '../../src/core/text-estimate.ts';
import { videoEstimate, videoHold } from '../../src/core/video-usage.ts';
import { newRequestState } from '../../src/http/front/rules.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import { useStore } from '../support/store.ts';

const cat = new Catalogue(DEFAULT_CATALOGUE);

describe('videoEstimate (what a video creation holds, unless videoHold is larger)', () => {
  it('requested or default seconds at the requested or default tier', () => {
    expect(videoEstimate(cat.get('hhx-1.1-t2v')!, {})).toEqual({
      kind: 'video',
      outputSeconds: 5,
      inputSeconds: 0,
      tier: '1080p',
    });
    expect(videoEstimate(cat.get('wnx2.7-t2v')!, { seconds: 8, resolution: '720p' })).toEqual({
      kind: 'video',
      outputSeconds: 8,
      inputSeconds: 0,
      tier: '720p',
    });
  });
  it('input+output edit models count the requested length for the input as well', () => {
    expect(videoEstimate(cat.get('hhx-1.0-video-edit')!, { seconds: 6 })).toEqual({
      kind: 'video',
      outputSeconds: 6,
      inputSeconds: 6,
      tier: '720p',
    });
  });
  it('an input+output edit model without a length parameter holds the longest it can bill (15 s in, 15 s out); the estimate stays', () => {
    // The upstream cuts the source video to 15 s and the edit is as long as its source: the charge is at most 30 s.
    const edit = cat.get('hhx-1.0-video-edit')!;
    expect(edit.video).toMatchObject({ duration: false, maxSeconds: 15 });
    const estimate = videoEstimate(edit, { resolution: '1080p' });
    expect(estimate).toEqual({ kind: 'video', outputSeconds: 5, inputSeconds: 5, tier: '1080p' });
    expect(videoHold(edit, estimate)).toEqual({ kind: 'video', outputSeconds: 15, inputSeconds: 15, tier: '1080p' });
    // Models with a length parameter, or billed by output only, hold their estimate.
    const withLength = { ...edit, video: { ...edit.video!, duration: true } };
    expect(videoHold(withLength, videoEstimate(withLength, { seconds: 6 }))).toBeUndefined();
    expect(videoHold(cat.get('hhx-1.1-t2v')!, videoEstimate(cat.get('hhx-1.1-t2v')!, {}))).toBeUndefined();
  });
  it('family A models hold by mode; omni defaults to pro, the others to std', () => {
    expect(videoEstimate(cat.get('vidx-v3-omni')!, { seconds: 10 })).toEqual({
      kind: 'video-mode',
      outputSeconds: 10,
      tier: 'pro',
    });
    expect(videoEstimate(cat.get('vidx-v1')!, { seconds: 5 })).toEqual({
      kind: 'video-mode',
      outputSeconds: 5,
      tier: 'std',
    });
    expect(videoEstimate(cat.get('vidx-v1')!, { seconds: 10, mode: 'pro' })).toEqual({
      kind: 'video-mode',
      outputSeconds: 10,
      tier: 'pro',
    });
  });
  it('a text model has no video hold', () => {
    expect(() => videoEstimate(cat.get('qwx3.7-plus')!, {})).toThrow(/not a video model/);
  });
});

describe('textReservation', () => {
  it('holds the largest output limit the call names, whichever key names it; the default without one', () => {
    const msgs = [{ role: 'user', content: 'abcd' }];
    expect(textReservation({ messages: msgs, max_tokens: 8000, max_output_tokens: 1 }, true).outputTokens).toBe(8000);
    expect(textReservation({ messages: msgs, max_completion_tokens: 5, max_tokens: 300 }, true).outputTokens).toBe(300);
    expect(textReservation({ messages: msgs, max_tokens: 0, max_output_tokens: -3 }, true).outputTokens).toBe(4096);
    expect(textReservation({ messages: msgs }, true)).toEqual({ kind: 'tokens', inputTokens: 4, outputTokens: 4096 });
    expect(textReservation({ input: 'abcd', max_tokens: 50 }, false).outputTokens).toBe(0);
  });

  it('n choices hold n times the output limit', () => {
    const msgs = [{ role: 'user', content: 'abcd' }];
    expect(textReservation({ messages: msgs, max_tokens: 300, n: 4 }, true).outputTokens).toBe(1200);
    expect(textReservation({ messages: msgs, n: 2 }, true).outputTokens).toBe(8192);
    expect(textReservation({ messages: msgs, max_tokens: 300, n: 1 }, true).outputTokens).toBe(300);
    expect(textReservation({ messages: msgs, max_tokens: 300, n: 'x' }, true).outputTokens).toBe(300);
  });
});

describe('text estimate', () => {
  it('4 characters a token, 258 tokens a media part; roles, types and URLs are not text', () => {
    const size = inputSize({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'abcdefgh' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
      ],
    });
    expect(size).toEqual({ chars: 8, media: 1 });
    expect(estimateUsage(size, 9)).toEqual({ kind: 'tokens', inputTokens: 2 + 258, outputTokens: 3 });
  });

  it('media is what carries a URL, a data URI or base64 (messages sources too); text under the same key names is text', () => {
    const b64 = 'iVBORw0KGgo'.repeat(20);
    const media = inputSize({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
        { role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
      ],
    });
    expect(media).toEqual({ chars: 0, media: 4 });
    const big = 'lorem ipsum dolor sit amet '.repeat(400);
    // A tool schema's property named `data`, a tool call's `input.source`, a plain-text `url` field: text the upstream
    // reads.
    const text = inputSize({
      tools: [
        {
          type: 'function',
          function: {
            name: 'store',
            parameters: { type: 'object', properties: { data: { type: 'string', description: big } } },
          },
        },
      ],
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'fetch', input: { source: big, url: 'the page I mean' } }],
        },
      ],
    });
    expect(text.media).toBe(0);
    expect(text.chars).toBeGreaterThanOrEqual(2 * big.length);
    expect(
      textReservation(
        {
          messages: [{ role: 'user', content: 'x' }],
          tools: [
            { type: 'function', function: { name: 's', parameters: { properties: { data: { description: big } } } } },
          ],
        },
        true,
      ).inputTokens,
    ).toBeGreaterThanOrEqual(big.length);
  });
});

describe('chargeTokens for a reserved call whose answer was already delivered (a stream’s end)', () => {
  const fresh = useStore();
  let meter: StoreMeter;
  beforeAll(() => {
    meter = new StoreMeter(fresh.store.db, () => cat, {
      batchWriter: fresh.store.batchWriter,
      flushIntervalMs: 60_000,
    });
  });
  const model = cat.resolve('qwx3.7-plus')!;
  const usage = { kind: 'tokens', inputTokens: 1000, outputTokens: 200 } as const;

  async function reservedCall(id: string) {
    const tokenId = `tok_${id}`;
    await fresh.store.db
      .insertInto('tokens')
      .values({
        id: tokenId,
        name: id,
        secret_hash: `h-${id}`,
        prefix: 'tw-',
        quota: 10_000_000,
        spent: 0,
        held: 0,
        created_at: 1,
      })
      .execute();
    await meter.reserve(id, tokenId, 50_000);
    const state = newRequestState();
    state.principal = {
      tokenId,
      name: id,
      models: null,
      quota: 10_000_000,
      rpmLimit: null,
      tpmLimit: null,
      concurrencyLimit: null,
      billing: null,
    };
    state.reserved = true;
    const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    return { call: { id, state, log }, tokenId };
  }
  const spentOf = async (tokenId: string) =>
    Number(
      (await fresh.store.db.selectFrom('tokens').select('spent').where('id', '=', tokenId).executeTakeFirstOrThrow())
        .spent,
    );
  const ledgerOf = async (key: string) =>
    fresh.store.db.selectFrom('ledger').select(['amount']).where('idempotency_key', '=', key).execute();

  it('a settlement the store refuses for the moment still charges it: through the group commit, once', async () => {
    const { call, tokenId } = await reservedCall('req_settle_fails');
    const price = meter.price(model.billingModel, usage).amount;
    const spy = vi
      .spyOn(meter, 'settleReserved')
      .mockRejectedValueOnce(Object.assign(new Error('connection lost'), { code: 'ECONNRESET' }));
    await chargeTokens(meter, call, model, usage, false, null, true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(call.log.error).toHaveBeenCalledTimes(1);
    expect(call.state.amount).toBe(price);
    await meter.flush();
    expect(await ledgerOf('req_settle_fails')).toEqual([{ amount: price }]);
    expect(await spentOf(tokenId)).toBe(price);
    // The reservation is released, not left to the reaper: the quota counts the call once.
    expect(
      Number(
        (await fresh.store.db.selectFrom('tokens').select('held').where('id', '=', tokenId).executeTakeFirstOrThrow())
          .held,
      ),
    ).toBe(0);
    spy.mockRestore();
  });

  it('before delivery, the same failure fails the call (nothing answered, nothing charged) and releases its reservation', async () => {
    const { call, tokenId } = await reservedCall('req_settle_fails_early');
    const spy = vi.spyOn(meter, 'settleReserved').mockRejectedValueOnce(new Error('connection lost'));
    await expect(chargeTokens(meter, call, model, usage, false, null)).rejects.toThrow('connection lost');
    await meter.flush();
    expect(await ledgerOf('req_settle_fails_early')).toEqual([]);
    // Not left held for the reaper: the quota is free again at once.
    expect(
      Number(
        (await fresh.store.db.selectFrom('tokens').select('held').where('id', '=', tokenId).executeTakeFirstOrThrow())
          .held,
      ),
    ).toBe(0);
    expect(
      (
        await fresh.store.db
          .selectFrom('holds')
          .select('state')
          .where('hold_key', '=', 'req_settle_fails_early')
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe('released');
    spy.mockRestore();
  });

  it('images: a settlement that fails releases the reservation too', async () => {
    const { call, tokenId } = await reservedCall('req_images_settle_fails');
    const spy = vi.spyOn(meter, 'settleReserved').mockRejectedValueOnce(new Error('database is locked'));
    await expect(chargeImages(meter, call, cat.resolve('qwx-image-2.0')!, 2, null)).rejects.toThrow(
      'database is locked',
    );
    expect(
      Number(
        (await fresh.store.db.selectFrom('tokens').select('held').where('id', '=', tokenId).executeTakeFirstOrThrow())
          .held,
      ),
    ).toBe(0);
    await meter.flush();
    expect(await ledgerOf('req_images_settle_fails')).toEqual([]);
    spy.mockRestore();
  });
});
