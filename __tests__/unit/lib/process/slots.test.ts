import { clearSlot, readSlot, slotOrCreate, writeSlot } from '../../../../lib/process/slots';

afterEach(() => clearSlot('healthLastStatus'));

describe('process slots', () => {
  it('are shared with every other copy of the module, as each of Next’s bundles has one', () => {
    let otherCopy: typeof import('../../../../lib/process/slots') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- isolateModules needs require
      otherCopy = require('../../../../lib/process/slots');
    });
    expect(otherCopy!.readSlot).not.toBe(readSlot);
    writeSlot('healthLastStatus', 'warn');
    expect(otherCopy!.readSlot('healthLastStatus')).toBe('warn');
    otherCopy!.writeSlot('healthLastStatus', 'fail');
    expect(readSlot('healthLastStatus')).toBe('fail');
  });

  it('create a value once, whoever asks first', () => {
    const create = jest.fn(() => 'pass' as const);
    expect(slotOrCreate('healthLastStatus', create)).toBe('pass');
    expect(slotOrCreate('healthLastStatus', () => 'fail' as const)).toBe('pass');
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('can be emptied', () => {
    writeSlot('healthLastStatus', 'warn');
    clearSlot('healthLastStatus');
    expect(readSlot('healthLastStatus')).toBeUndefined();
  });
});
