// An Origin against the Host, from the grammar (RFC 6454 origins; RFC 9110 §7.2 Host, a host and an
// optional port): for hosts in any case, with and without ports, default or not, the rule must
// agree with two references: a model (same host ignoring case, same port once a missing one is
// the scheme's default) and the WHATWG URL parser's own origins.
import fc from 'fast-check';
import { crossSiteReason } from '@lib/http/cross-site';

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;
type Scheme = keyof typeof DEFAULT_PORT;

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const domain = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .map((labels) => [...labels, 'example'].join('.'));
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
const host = fc.oneof(domain, ipv4, fc.constant('localhost'));
/** A host spelled in any case: host names compare without it. */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((char, at) => (upper[at] ? char.toUpperCase() : char)).join(''));
/** No port, the scheme's default written out, or another. */
const port = (scheme: Scheme) =>
  fc.oneof(fc.constant(null), fc.constant(DEFAULT_PORT[scheme]), fc.integer({ min: 1, max: 65_535 }));

const pair = fc.constantFrom<Scheme>('http:', 'https:').chain((scheme) =>
  fc.record({
    scheme: fc.constant(scheme),
    originHost: host,
    // Most often the same host (in another case), sometimes another.
    hostHost: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: host }),
    originPort: port(scheme),
    hostPort: port(scheme),
    upper: fc.boolean(),
  }),
);

const withPort = (name: string, value: number | null) => (value === null ? name : `${name}:${value}`);

describe('an Origin against the Host, from the grammar', () => {
  it('is the same origin exactly when the host matches in any case and the ports once defaulted', () => {
    fc.assert(
      fc.property(
        pair.chain((drawn) =>
          anyCase(drawn.hostHost ?? drawn.originHost).map((spelled) => ({ ...drawn, spelled })),
        ),
        ({ scheme, originHost, hostHost, originPort, hostPort, spelled }) => {
          const origin = `${scheme}//${withPort(originHost, originPort)}`;
          const hostHeader = withPort(spelled, hostPort);
          const model =
            (hostHost ?? originHost).toLowerCase() === originHost.toLowerCase() &&
            (originPort ?? DEFAULT_PORT[scheme]) === (hostPort ?? DEFAULT_PORT[scheme]);
          const whatwg = new URL(origin).origin === new URL(`${scheme}//${hostHeader}`).origin;
          expect(whatwg).toBe(model);
          expect(crossSiteReason({ origin, host: hostHeader })).toBe(model ? '' : 'Origin is another site');
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('is never the same origin for a Host with anything after the port', () => {
    fc.assert(
      fc.property(
        host,
        fc.constantFrom('/', '/path', '?q', '#f', '@elsewhere.example', ' x'),
        (name, tail) => {
          expect(crossSiteReason({ origin: `https://${name}`, host: `${name}${tail}` })).toBe(
            'Origin is another site',
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
