// NEXT_TYPECHECK: `next build` checks the types unless told they were checked already
// (docs/configuration.md); the test suites build a dozen times and check once.
import { nextConfigWith } from '../../support/next-config';

const withEnv = (value: string | undefined) => nextConfigWith({ NEXT_TYPECHECK: value }).typescript;

describe('next.config and NEXT_TYPECHECK', () => {
  it('checks the types by default and with on', () => {
    expect(withEnv(undefined)).toEqual({ ignoreBuildErrors: false });
    expect(withEnv('on')).toEqual({ ignoreBuildErrors: false });
  });

  it('leaves them to an earlier check with off', () => {
    expect(withEnv('off')).toEqual({ ignoreBuildErrors: true });
  });
});
