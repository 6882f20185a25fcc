import type { NextApiHandler } from 'next';

const fails: NextApiHandler = () => {
  throw new Error('The fails route failed', { cause: new Error('its own cause') });
};

export default fails;
