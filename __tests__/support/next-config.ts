// next.config.ts as `next build` calls it, with some build variables set for the call alone.
import { PHASE_PRODUCTION_BUILD } from 'next/constants';
import nextConfig from '../../next.config';

/** The build's config with `env` set (undefined: unset); the environment is as it was after. */
export function nextConfigWith(env: Record<string, string | undefined>) {
  const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(env);
  try {
    return nextConfig(PHASE_PRODUCTION_BUILD);
  } finally {
    set(before);
  }
}
