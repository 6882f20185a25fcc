import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeErrorPages } from '../../../scripts/error-pages';
import { fakeBuild } from '../../support/fake-build';

let root: string;
const saved = { ...process.env };

beforeEach(() => {
  root = fakeBuild('error-pages-', {
    APP_SERVICE_NAME: 'Apply for a bar licence',
    APP_CONTACT_HREF: 'mailto:help@example.org',
    APP_CONTACT_LABEL: 'email the licensing team',
  });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  process.env = { ...saved };
});

it('writes the three pages with the build’s own stylesheet and settings', async () => {
  const line = await writeErrorPages(root, {});
  expect(line).toMatch(
    /^Balancer pages: 502, 503, 504 in \.next\/error-pages\/ \(\d+ bytes each, no JavaScript\)\.$/,
  );
  for (const status of [502, 503, 504]) {
    const html = readFileSync(path.join(root, '.next/error-pages', `${status}.html`), 'utf8');
    expect(html).toContain('<style>.es-main{color:#0b0c0c}</style>');
    expect(html).toContain('<title>Sorry, the service is unavailable – Apply for a bar licence</title>');
    expect(html).toContain('<a href="mailto:help@example.org">email the licensing team</a>');
    const answer = readFileSync(path.join(root, '.next/error-pages', `${status}.http`), 'utf8');
    expect(answer.endsWith(html)).toBe(true);
  }
});

it('fails when the build has no stylesheet, rather than write unstyled pages', async () => {
  writeFileSync(path.join(root, '.next/build-manifest.json'), JSON.stringify({ pages: { '/_app': [] } }));
  await expect(writeErrorPages(root, {})).rejects.toThrow(/no stylesheet for \/_app/);
});
