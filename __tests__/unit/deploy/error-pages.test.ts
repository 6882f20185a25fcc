// The balancer configurations that serve the build's pages (docs/unavailable-screens.md) must name
// the files where the image has them, and the image the app runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { BALANCER_STATUSES, haproxyLanguageRules } from '@lib/error-pages/balancer-pages';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const yaml = (file: string) => parseAllDocuments(read(file)).map((doc) => doc.toJS());

/** Where the image keeps the app: the Dockerfile's last WORKDIR. */
const workdir = [...read('Dockerfile').matchAll(/^WORKDIR (\S+)$/gm)].at(-1)?.[1];

describe('deploy/haproxy/haproxy.cfg', () => {
  const config = read('deploy/haproxy/haproxy.cfg');

  it('answers each status a balancer makes with the build’s errorfile, where the image has it', () => {
    expect(workdir).toBe('/app');
    for (const status of BALANCER_STATUSES)
      expect(config).toMatch(
        new RegExp(`^\\s*errorfile ${status} ${workdir}/\\.next/error-pages/${status}\\.http$`, 'm'),
      );
  });

  it('answers a visitor with every instance down in their first language, for each language but the default', () => {
    expect(config).toContain(
      haproxyLanguageRules(`${workdir}/.next/error-pages`, ['fr', 'de', 'es', 'ar']).join('\n'),
    );
  });

  it('takes an instance out by its readiness, so a draining one gets no new visitors', () => {
    expect(config).toMatch(/^\s*option httpchk GET \/api\/health\/ready$/m);
  });
});

describe('deploy/kubernetes/error-pages', () => {
  const [deployment] = yaml('deploy/kubernetes/error-pages/deployment.yaml') as {
    spec: { template: { spec: { initContainers: { image: string; command: string[] }[] } } };
  }[];
  const [kustomization] = yaml('deploy/kubernetes/error-pages/kustomization.yaml') as {
    images: { name: string; newTag: string }[];
    configMapGenerator: { files: string[] }[];
  }[];
  const [appKustomization] = yaml('deploy/kubernetes/kustomization.yaml') as { images: unknown[] }[];

  it('copies the pages out of the app’s own image, tagged as the app is', () => {
    const [copy] = deployment!.spec.template.spec.initContainers;
    expect(copy!.image).toBe('app-shell');
    expect(copy!.command.join(' ')).toContain(`${workdir}/.next/error-pages`);
    expect(kustomization!.images).toEqual(appKustomization!.images);
  });

  it('mounts the nginx configuration the end-to-end test runs', () => {
    expect(kustomization!.configMapGenerator[0]!.files).toEqual(['nginx.conf']);
  });
});
