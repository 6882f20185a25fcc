// What the shipped balancers send again when an instance dies (docs/reliability.md, "An instance
// dies"): GET and HEAD, once, on another instance; never a request that may have reached an
// instance otherwise. The reliability suite's instance-death test runs the HAProxy configuration
// itself; these read both files for the rules a change could drop unnoticed there.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('deploy/haproxy/haproxy.cfg', () => {
  const config = read('deploy/haproxy/haproxy.cfg');
  const directive = (name: string) =>
    config
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith(`${name} `));

  it('sends again, on another instance, a GET or HEAD whose instance closed or reset it before answering', () => {
    expect(directive('retries')).toEqual(['retries 2']);
    expect(directive('option redispatch')).toEqual(['option redispatch 1']);
    const [retryOn, ...more] = directive('retry-on');
    expect(more).toEqual([]);
    expect(retryOn!.split(/\s+/).slice(1).sort()).toEqual(['conn-failure', 'empty-response']);
  });

  it('sends nothing else again once it may have reached an instance: only connection failures for other methods', () => {
    expect(directive('http-request disable-l7-retry')).toEqual([
      'http-request disable-l7-retry unless METH_GET || METH_HEAD',
    ]);
    // A status is an instance's answer: retrying it would send a request the instance handled. A
    // slow answer is retried by nobody: a stranger's costly request would run three times.
    expect(config).not.toMatch(
      /retry-on[^\n]*\b(all-retryable-errors|response-timeout|junk-response|[45]\d\d)\b/,
    );
  });
});

describe('deploy/kubernetes/ingress-nginx', () => {
  const [kustomization] = parseAllDocuments(read('deploy/kubernetes/ingress-nginx/kustomization.yaml')).map(
    (doc) => doc.toJS() as { resources: string[] },
  );
  const [ingress] = parseAllDocuments(read('deploy/kubernetes/ingress-nginx/ingress.yaml')).map(
    (doc) =>
      doc.toJS() as {
        kind: string;
        metadata: { annotations: Record<string, string> };
        spec: {
          rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[];
        };
      },
  );
  const [service] = parseAllDocuments(read('deploy/kubernetes/service.yaml')).map(
    (doc) => doc.toJS() as { metadata: { name: string }; spec: { ports: { name: string }[] } },
  );
  const annotation = (name: string) => ingress!.metadata.annotations[`nginx.ingress.kubernetes.io/${name}`];

  it('is an Ingress of the kustomization, in front of the app’s Service and port', () => {
    expect(kustomization!.resources).toEqual(['ingress.yaml']);
    expect(ingress!.kind).toBe('Ingress');
    const { service: backend } = ingress!.spec.rules[0]!.http.paths[0]!.backend;
    expect(backend.name).toBe(service!.metadata.name);
    expect(service!.spec.ports.map((port) => port.name)).toContain(backend.port.name);
  });

  it('sends a request whose pod failed before answering once more, to another pod, and never a POST that reached one', () => {
    // Pods' own addresses: with the Service's one address there is nowhere else to send it.
    expect(annotation('service-upstream')).toBe('false');
    expect(annotation('proxy-next-upstream')!.split(/\s+/).sort()).toEqual(['error', 'timeout']);
    expect(annotation('proxy-next-upstream-tries')).toBe('2');
    expect(Number(annotation('proxy-next-upstream-timeout'))).toBeGreaterThan(
      Number(annotation('proxy-read-timeout')),
    );
  });

  it('gives an instance the same time as the shipped HAProxy configuration', () => {
    const haproxy = read('deploy/haproxy/haproxy.cfg');
    expect(haproxy).toMatch(new RegExp(`timeout connect ${annotation('proxy-connect-timeout')}s`));
    expect(haproxy).toMatch(new RegExp(`timeout server ${annotation('proxy-read-timeout')}s`));
  });
});
