import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { processSlot } from '@lib/process/slots';
import { SOURCE_ROOT } from '../../../support/paths';

const slot = processSlot<string>('test.slot');
afterEach(() => slot.clear());

describe('process slots', () => {
  it('are shared with every other copy of the module, as each of Next’s bundles has one', () => {
    let otherCopy: typeof import('@lib/process/slots') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- isolateModules needs require
      otherCopy = require('@lib/process/slots');
    });
    expect(otherCopy!.processSlot).not.toBe(processSlot);
    const other = otherCopy!.processSlot<string>('test.slot');
    slot.write('warn');
    expect(other.read()).toBe('warn');
    other.write('fail');
    expect(slot.read()).toBe('fail');
  });

  it('create a value once, whoever asks first', () => {
    const create = jest.fn(() => 'pass');
    expect(slot.getOrCreate(create)).toBe('pass');
    expect(processSlot<string>('test.slot').getOrCreate(() => 'fail')).toBe('pass');
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('can be emptied', () => {
    slot.write('warn');
    slot.clear();
    expect(slot.read()).toBeUndefined();
  });

  it('are each declared once in the app, by their owner', () => {
    const root = path.join(SOURCE_ROOT, 'lib');
    const names = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('slots.ts'))
      .flatMap((file) => [
        ...readFileSync(path.join(root, file), 'utf8').matchAll(/processSlot<[^(]+>\('([^']+)'\)/g),
      ])
      .map((match) => match[1]);
    expect(names.length).toBeGreaterThanOrEqual(6);
    expect(new Set(names).size).toBe(names.length);
  });
});
