import { createUploadBudget, uploadDeadlineMs } from '../../../../lib/http/upload';

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
