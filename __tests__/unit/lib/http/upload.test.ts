import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { createUploadBudget, readUpload, uploadDeadlineMs } from '@lib/http/upload';

describe('createUploadBudget', () => {
  it('takes bytes while they fit, and never more than its size, however they are split', () => {
    const budget = createUploadBudget(100);
    expect(budget.take(60)).toBe(true);
    expect(budget.take(41)).toBe(false);
    expect(budget.held()).toBe(60);
    expect(budget.take(40)).toBe(true);
    expect(budget.take(1)).toBe(false);
    budget.give(30);
    expect(budget.take(30)).toBe(true);
    expect(budget.held()).toBe(100);
  });

  it('never goes below nothing when given back more than it holds', () => {
    const budget = createUploadBudget(10);
    budget.give(5);
    expect(budget.held()).toBe(0);
    expect(budget.take(10)).toBe(true);
  });
});

describe('uploadDeadlineMs', () => {
  const limits = { maxBytes: 1024 * 1024, graceMs: 2000, minBytesPerSecond: 16 * 1024, maxMs: 10_000 };

  it('gives every upload its grace, plus its length at the minimum rate, up to the cap', () => {
    expect(uploadDeadlineMs(0, limits)).toBe(2000);
    expect(uploadDeadlineMs(16 * 1024, limits)).toBe(3000);
    expect(uploadDeadlineMs(5000, limits)).toBeCloseTo(2305, 0);
    expect(uploadDeadlineMs(1024 * 1024, limits)).toBe(10_000);
  });
});

describe('readUpload', () => {
  const limits = { maxBytes: 100, graceMs: 1000, minBytesPerSecond: 100, maxMs: 5000 };
  const upload = (headers: Record<string, string> = {}) =>
    Object.assign(new PassThrough(), { headers }) as PassThrough & IncomingMessage;

  it('reads a body of its declared length whole, and holds its bytes until released', async () => {
    const budget = createUploadBudget(1000);
    const req = upload({ 'content-length': '10' });
    const reading = readUpload(req, budget, limits);
    req.write('01234');
    req.end('56789');
    const result = await reading;
    expect(result.kind).toBe('body');
    if (result.kind !== 'body') return;
    expect(result.body.toString()).toBe('0123456789');
    expect(budget.held()).toBe(10);
    result.release();
    result.release();
    expect(budget.held()).toBe(0);
  });

  it('reads a body with no declared length (chunked) up to the limit', async () => {
    const budget = createUploadBudget(1000);
    const req = upload();
    const reading = readUpload(req, budget, limits);
    req.end(Buffer.alloc(100, 1));
    const result = await reading;
    expect(result.kind).toBe('body');
  });

  it.each(['-1', '1.5', 'ten', String(2 ** 53)])('calls a declared length of %p aborted', async (length) => {
    const budget = createUploadBudget(1000);
    expect(await readUpload(upload({ 'content-length': length }), budget, limits)).toEqual({
      kind: 'aborted',
    });
    expect(budget.held()).toBe(0);
  });

  it('refuses a declared length over the limit before reading a byte', async () => {
    const budget = createUploadBudget(1000);
    const req = upload({ 'content-length': '101' });
    expect(await readUpload(req, budget, limits)).toEqual({ kind: 'too-large' });
    expect(req.listenerCount('data')).toBe(0);
  });

  it('takes a declared length of exactly the limit', async () => {
    const budget = createUploadBudget(1000);
    const req = upload({ 'content-length': '100' });
    const reading = readUpload(req, budget, limits);
    req.end(Buffer.alloc(100, 1));
    expect((await reading).kind).toBe('body');
  });

  it('refuses an undeclared body once it passes the limit, and gives back what it took', async () => {
    const budget = createUploadBudget(1000);
    const req = upload();
    const reading = readUpload(req, budget, limits);
    req.write(Buffer.alloc(60));
    req.write(Buffer.alloc(41));
    expect(await reading).toEqual({ kind: 'too-large' });
    expect(budget.held()).toBe(0);
  });

  it('calls busy a declared length that cannot fit beside what is held, before reading', async () => {
    const budget = createUploadBudget(100);
    budget.take(95);
    const req = upload({ 'content-length': '10' });
    expect(await readUpload(req, budget, limits)).toEqual({ kind: 'busy' });
    expect(budget.held()).toBe(95);
  });

  it('calls busy an undeclared body that stops fitting, and takes nothing after it is refused', async () => {
    const budget = createUploadBudget(100);
    budget.take(95);
    const req = upload();
    const reading = readUpload(req, budget, limits);
    req.write(Buffer.alloc(10));
    expect(await reading).toEqual({ kind: 'busy' });
    budget.give(95);
    // The client goes on sending: nothing of it is taken from the budget any more.
    req.write(Buffer.alloc(10));
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.held()).toBe(0);
  });

  it('calls a body shorter than it declared aborted, and gives back what it took', async () => {
    const budget = createUploadBudget(1000);
    const req = upload({ 'content-length': '10' });
    const reading = readUpload(req, budget, limits);
    req.end('01234');
    expect(await reading).toEqual({ kind: 'aborted' });
    expect(budget.held()).toBe(0);
  });

  it.each(['close', 'error'])(
    'calls an upload whose request emits %p before its end aborted',
    async (event) => {
      const budget = createUploadBudget(1000);
      const req = upload({ 'content-length': '10' });
      const reading = readUpload(req, budget, limits);
      req.write('01234');
      await new Promise((resolve) => setImmediate(resolve));
      req.emit(event, new Error('gone'));
      expect(await reading).toEqual({ kind: 'aborted' });
      expect(budget.held()).toBe(0);
    },
  );

  it('calls an upload too slow at its deadline, and gives back what it took', async () => {
    jest.useFakeTimers();
    try {
      const budget = createUploadBudget(1000);
      const req = upload({ 'content-length': '50' });
      const reading = readUpload(req, budget, limits);
      req.write('01234');
      await Promise.resolve();
      jest.advanceTimersByTime(uploadDeadlineMs(50, limits) - 1);
      let settled = false;
      void reading.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      jest.advanceTimersByTime(1);
      expect(await reading).toEqual({ kind: 'too-slow' });
      expect(budget.held()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
