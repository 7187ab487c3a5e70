import { describe, expect, it } from 'vitest';
import { RequestThread } from '../../src/lib/request-thread.ts';

/** Echoes each request's value; `exit` ends the thread without answering. */
const ECHO = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.exit) process.exit(0);
  setTimeout(() => parentPort.postMessage({ id: m.id, echo: m.value }), m.delayMs ?? 0);
});
`;

function echoThread() {
  let settled = 0;
  const thread = new RequestThread<{ id: number; echo: unknown }>({
    source: ECHO,
    stoppedError: () => new Error('the echo thread stopped'),
    onStart: (worker) => worker.unref(),
    onSettled: () => settled++,
  });
  return { thread, settled: () => settled };
}

describe('RequestThread', () => {
  it('matches each reply to its request, whatever order they come back in', async () => {
    const { thread, settled } = echoThread();
    const slow = thread.request({ value: 'slow', delayMs: 50 });
    const fast = thread.request({ value: 'fast' });
    expect(thread.inFlight).toBe(2);
    expect((await fast).echo).toBe('fast');
    expect((await slow).echo).toBe('slow');
    expect(thread.inFlight).toBe(0);
    expect(settled()).toBe(2);
    expect(thread.started).toBe(1);
    await thread.terminate();
  });

  it('rejects a message that cannot be sent and keeps nothing of it in flight', async () => {
    const { thread, settled } = echoThread();
    await expect(thread.request({ value: () => 1 })).rejects.toThrow(/could not be cloned/);
    expect(thread.inFlight).toBe(0);
    expect(settled()).toBe(1);
    expect((await thread.request({ value: 2 })).echo).toBe(2);
    await thread.terminate();
  });

  it('fails the requests of a thread that ends, and the next request starts another', async () => {
    const { thread } = echoThread();
    const waiting = thread.request({ value: 'never', delayMs: 10_000 });
    const ending = thread.request({ exit: true });
    await expect(waiting).rejects.toThrow('the echo thread stopped');
    await expect(ending).rejects.toThrow('the echo thread stopped');
    expect(thread.inFlight).toBe(0);
    expect((await thread.request({ value: 'again' })).echo).toBe('again');
    expect(thread.started).toBe(2);
    await thread.terminate();
  });

  it('fails what is in flight when terminated', async () => {
    const { thread } = echoThread();
    const waiting = thread.request({ value: 'never', delayMs: 10_000 });
    await thread.terminate();
    await expect(waiting).rejects.toThrow('the echo thread stopped');
    expect(thread.worker).toBeUndefined();
  });
});
