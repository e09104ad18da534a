import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { AbortLink } from '../../src/adapters/abort-link.ts';

/** A stand-in for undici's controller: records what it was aborted with. */
function controller(): Dispatcher.DispatchController & { reason: unknown } {
  const c = {
    reason: undefined as unknown,
    aborted: false,
    paused: false,
    abort: (r: Error) => void (c.reason = r),
    pause() {},
    resume() {},
  };
  return c as unknown as Dispatcher.DispatchController & { reason: unknown };
}

describe('abort link', () => {
  it('no signal, no link', () => {
    expect(AbortLink.on(undefined)).toBeNull();
    expect(AbortLink.on(null)).toBeNull();
  });

  it("aborts the attached call when the caller's signal aborts", () => {
    const ac = new AbortController();
    const link = AbortLink.on(ac.signal)!;
    const c = controller();
    link.attach(c);
    ac.abort();
    expect(c.reason).toBeInstanceOf(undiciErrors.RequestAbortedError);
  });

  it('a signal aborted before the call reached a connection aborts it on attach', () => {
    const ac = new AbortController();
    const link = AbortLink.on(ac.signal)!;
    ac.abort();
    const c = controller();
    link.attach(c);
    expect(c.reason).toBeInstanceOf(undiciErrors.RequestAbortedError);
  });

  it('a settled call is neither aborted nor held: the listener is gone and the controller dropped', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const ac = new AbortController();
    const link = AbortLink.on(ac.signal)!;
    const held = new WeakRef(attachAndSettle(link));
    for (let i = 0; i < 5 && held.deref() !== undefined; i++) {
      await new Promise((r) => setTimeout(r, 0));
      gc();
    }
    // The signal and the link are still reachable here; the call is not.
    expect(held.deref()).toBeUndefined();
    ac.abort();
    expect(link).toBeInstanceOf(AbortLink);
  });

  it('after off() the signal has no listener left and an abort reaches no call', () => {
    const ac = new AbortController();
    const link = AbortLink.on(ac.signal)!;
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    const c = controller();
    link.attach(c);
    link.off();
    // A caller's signal may outlive many calls: each must take its listener away.
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    ac.abort();
    expect(c.reason).toBeUndefined();
  });
});

function attachAndSettle(link: AbortLink): object {
  const c = controller();
  link.attach(c);
  link.off();
  return c;
}
