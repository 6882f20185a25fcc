// NEXT_TYPECHECK: `next build` checks the types unless told they were checked already
// (docs/configuration.md); the test suites build a dozen times and check once.
import { PHASE_PRODUCTION_BUILD } from 'next/constants';
import nextConfig from '../../../next.config';

const withEnv = (value: string | undefined) => {
  const before = process.env.NEXT_TYPECHECK;
  if (value === undefined) delete process.env.NEXT_TYPECHECK;
  else process.env.NEXT_TYPECHECK = value;
  try {
    return nextConfig(PHASE_PRODUCTION_BUILD).typescript;
  } finally {
    if (before === undefined) delete process.env.NEXT_TYPECHECK;
    else process.env.NEXT_TYPECHECK = before;
  }
};

describe('next.config and NEXT_TYPECHECK', () => {
  it('checks the types by default and with on', () => {
    expect(withEnv(undefined)).toEqual({ ignoreBuildErrors: false });
    expect(withEnv('on')).toEqual({ ignoreBuildErrors: false });
  });

  it('leaves them to an earlier check with off', () => {
    expect(withEnv('off')).toEqual({ ignoreBuildErrors: true });
  });
});
