// The deployment files must agree with the app: probe paths it serves, the port it listens on, and a
// grace period that covers its whole shutdown.
import { readdirSync, readFileSync } from 'node:fs';
import dockerignore from '@balena/dockerignore';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readSettings } from '../../../lib/config/settings';
import { DEFAULT_FLUSH_TIMEOUT_MS } from '../../../lib/lifecycle/graceful-shutdown';
import { REFRESH_MS } from '../../../lib/fleet/directory';

const ROOT = path.resolve(__dirname, '../../..');
const K8S = path.join(ROOT, 'deploy/kubernetes');

// Only the fields these tests read.
interface Probe {
  httpGet: { path: string; port: string | number };
  timeoutSeconds?: number;
  periodSeconds?: number;
}
interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value: string }[];
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts: { name: string; mountPath: string }[];
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

function load(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).map((doc) => doc.toJS() as Manifest);
}

const kustomization = load('kustomization.yaml')[0] as unknown as { resources: string[] };
const all = kustomization.resources.flatMap(load);
const byKind = (kind: string) => {
  const found = all.find((m) => m.kind === kind);
  if (!found) throw new Error(`no ${kind} manifest`);
  return found;
};
const deployment = byKind('Deployment') as Manifest & {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds: number;
        securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
      };
    };
  };
};
const container = deployment.spec.template.spec.containers[0]!;
const env = Object.fromEntries((container.env ?? []).map(({ name, value }) => [name, value]));

describe('Kubernetes Deployment', () => {
  it('is applied with every manifest in the folder', () => {
    const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it('names the image by the app’s version, never a moving tag', () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(container.image).toBe(`app-shell:${version}`);
  });

  it('runs two or more replicas', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
  });

  it('probes the management listener’s paths, for the right purpose', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/livez');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.startupProbe.httpGet.path).toBe('/readyz');
  });

  it('serves the app on the port it listens on, and probes the management port it listens on', () => {
    const settings = readSettings(env, { dsnAtBuild: null });
    expect(container.ports.find((p) => p.name === 'http')?.containerPort).toBe(settings.port);
    expect(container.ports.find((p) => p.name === 'management')?.containerPort).toBe(settings.managementPort);
    expect(settings.managementPort).toBeGreaterThan(0);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
      expect(probe.httpGet.port).toBe('management');
      expect(probe.timeoutSeconds).toBeGreaterThanOrEqual(1);
    }
  });

  it('gives a wedged pod time to be noticed, not a busy one: liveness fails only after the wedge limit', () => {
    const settings = readSettings(env, { dsnAtBuild: null });
    const { periodSeconds = 10, failureThreshold = 3 } = container.livenessProbe as Probe & {
      failureThreshold?: number;
    };
    expect(periodSeconds * failureThreshold * 1000).toBeGreaterThanOrEqual(settings.livenessWedgeMs);
  });

  it('gives the pod a grace period that covers preStop, drain, in-flight requests and the flush', () => {
    const config = readSettings({ ...env, KUBERNETES_SERVICE_HOST: 'in-cluster' }, { dsnAtBuild: null });
    const preStopMs = (container.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
    const needed =
      preStopMs +
      config.drainMs +
      config.shutdownTimeoutMs +
      DEFAULT_FLUSH_TIMEOUT_MS +
      config.reportHandoffTimeoutMs;
    expect(config.drainMs).toBeGreaterThan(0);
    // 30 s (docs/operations.md), of which the steps above take 24.
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(needed);
    expect(needed).toBe(24_000);
  });

  it('gives every pod the hand-off secret from a Secret, never a value written here, and starts without it', () => {
    const secret = (container.env ?? []).find(({ name }) => name === 'REPORT_HANDOFF_SECRET') as
      | { value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }
      | undefined;
    expect(secret?.value).toBeUndefined();
    expect(secret?.valueFrom?.secretKeyRef).toEqual({
      name: 'app-shell-report-handoff',
      key: 'secret',
      optional: true,
    });
    expect(env.FLEET_PEERS).toMatch(/^dns:/);
  });

  it('sets resource requests and limits', () => {
    expect(container.resources.requests).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
    expect(container.resources.limits).toEqual(expect.objectContaining({ memory: expect.any(String) }));
  });

  it('runs as non-root on a read-only root filesystem, with the folders Next writes to mounted', () => {
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(container.volumeMounts.map((m) => m.mountPath)).toEqual(
      expect.arrayContaining(['/app/.next/cache', '/tmp']),
    );
  });
});

describe('Service, PodDisruptionBudget and HorizontalPodAutoscaler', () => {
  const labels = deployment.spec.template.metadata.labels;

  it('route to the container port by name and select the Deployment pods', () => {
    const service = byKind('Service').spec as {
      selector: Record<string, string>;
      ports: { targetPort: string }[];
    };
    expect(service.ports.map((port) => port.targetPort)).toEqual(['http']);
    expect(labels).toEqual(expect.objectContaining(service.selector));
    expect(labels).toEqual(expect.objectContaining(deployment.spec.selector.matchLabels));
  });

  it('keep at least one pod through voluntary disruptions', () => {
    const pdb = byKind('PodDisruptionBudget').spec as {
      minAvailable: number;
      selector: { matchLabels: Record<string, string> };
    };
    expect(pdb.minAvailable).toBeGreaterThanOrEqual(1);
    expect(labels).toEqual(expect.objectContaining(pdb.selector.matchLabels));
  });

  it('scale the Deployment between two and more replicas', () => {
    const hpa = byKind('HorizontalPodAutoscaler').spec as {
      scaleTargetRef: { kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
    };
    expect(hpa.scaleTargetRef).toEqual(
      expect.objectContaining({ kind: 'Deployment', name: deployment.metadata.name }),
    );
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
  });
});

describe('The fleet (docs/fleet.md)', () => {
  const services = all.filter((m) => m.kind === 'Service') as (Manifest & {
    spec: {
      clusterIP?: string;
      publishNotReadyAddresses?: boolean;
      selector: Record<string, string>;
      ports: { port: number; targetPort: string }[];
    };
  })[];
  const headless = services.find((s) => s.spec.clusterIP === 'None');

  it('has a headless Service over every pod, ready or not, on the app port', () => {
    expect(headless).toBeDefined();
    expect(headless!.spec.publishNotReadyAddresses).toBe(true);
    expect(deployment.spec.template.metadata.labels).toEqual(
      expect.objectContaining(headless!.spec.selector),
    );
    expect(headless!.spec.ports.map((p) => p.targetPort)).toEqual(['http']);
  });

  it('names that Service, at the app port, in FLEET_PEERS', () => {
    const settings = readSettings(env, { dsnAtBuild: null });
    expect(settings.fleetPeers).toEqual([
      { kind: 'dns', name: headless!.metadata.name, port: headless!.spec.ports[0]!.port },
    ]);
    expect(headless!.spec.ports[0]!.port).toBe(settings.port);
  });

  it('rolls one pod at a time, an old one leaving only after a new one has served a while', () => {
    const spec = deployment.spec as unknown as {
      strategy: { type: string; rollingUpdate: { maxUnavailable: number; maxSurge: number } };
      minReadySeconds: number;
    };
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
    // 10 s (docs/fleet.md): longer than the fleet's refresh (5 s), so every old pod knows the new
    // one before the next goes.
    expect(spec.minReadySeconds).toBe(10);
    expect(spec.minReadySeconds * 1000).toBeGreaterThan(REFRESH_MS);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));

  it('is multi-stage and runs as a non-root user', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const user = instructions.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/USER\s+(root|0)\b/);
  });

  it('builds standalone output and assembles it with the script the tests boot', () => {
    expect(dockerfile).toMatch(/NEXT_OUTPUT=standalone npm run build/);
    expect(dockerfile).toContain('scripts/assemble-standalone.sh');
  });

  it('checks liveness with the image’s own node, and starts the compiled server', () => {
    const healthcheck = dockerfile.replace(/\\\n\s*/g, '').match(/^HEALTHCHECK .*$/m)?.[0];
    expect(healthcheck).toContain('CMD ["node", "-e", ');
    expect(healthcheck).toContain('/api/health/live');
    expect(instructions.at(-1)).toBe('CMD ["node", "dist/lib/server/start.js"]');
    // `exec`: npm's shell becomes the server, so a SIGTERM npm forwards reaches it. (scripts/start.js
    // loads the compiled server in its own process, after checking there is one.)
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(scripts.start).toBe('exec node scripts/start.js');
    expect(scripts.dev).toMatch(/&& exec node dist\/lib\/server\/start\.js --dev$/);
  });

  it('carries the build files of PREVIOUS_IMAGE, from where the runtime stage keeps them, and builds without one', () => {
    const flat = dockerfile.replace(/\\\n\s*/g, ' ');
    // Without the argument, an empty folder of a stage of its own: nothing is carried.
    expect(flat).toMatch(/^ARG PREVIOUS_IMAGE=no-previous-image$/m);
    expect(flat).toMatch(
      /^FROM \$\{NODE_IMAGE\} AS no-previous-image\s+RUN mkdir -p \/app\/\.next\/static$/m,
    );
    expect(flat).toMatch(/^FROM \$\{PREVIOUS_IMAGE\} AS previous$/m);
    expect(flat).toMatch(
      /--mount=type=bind,from=previous,source=\/app\/\.next,target=\/previous\/\.next .*KEEP_STATIC_FROM=\/previous\/\.next\/static NEXT_OUTPUT=standalone npm run build/,
    );
    // The runtime stage serves the build from /app/.next, with the list of builds it carries.
    expect(flat).toMatch(/^WORKDIR \/app$/m);
    expect(readFileSync(path.join(ROOT, 'scripts/assemble-standalone.sh'), 'utf8')).toContain(
      'carried-builds.json',
    );
  });

  it('runs on Node 24 LTS', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-/m);
  });

  it('exposes the port the manifests use', () => {
    expect(instructions).toContain(`EXPOSE ${container.ports.map((port) => port.containerPort).join(' ')}`);
  });
});

describe('NetworkPolicy', () => {
  interface Peer {
    ipBlock?: { cidr: string; except?: string[] };
    namespaceSelector?: { matchLabels: Record<string, string> };
    podSelector?: { matchLabels: Record<string, string> };
  }
  interface Rule {
    to?: Peer[];
    from?: Peer[];
    ports?: { port: string | number; protocol: string }[];
  }
  const policy = byKind('NetworkPolicy') as Manifest & {
    spec: {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: Rule[];
      egress: Rule[];
    };
  };
  const port = container.ports[0]!;

  it('applies to the Deployment’s pods, in both directions', () => {
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    expect([...policy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
  });

  it('lets in the app’s port from anywhere, and the management port from the nodes and monitoring only', () => {
    expect(policy.spec.ingress).toHaveLength(2);
    const [app, management] = policy.spec.ingress;
    expect(app!.from).toBeUndefined();
    expect(app!.ports).toEqual([{ port: port.name, protocol: 'TCP' }]);
    expect(management!.ports).toEqual([{ port: 'management', protocol: 'TCP' }]);
    expect(management!.from).toEqual([
      { ipBlock: { cidr: expect.any(String) } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    ]);
  });

  it('lets out DNS to kube-dns, the app port of the other app-shell pods and HTTPS to the ingest addresses, nothing else', () => {
    expect(policy.spec.egress).toHaveLength(3);
    const [fleet, dns, ingest] = policy.spec.egress;
    expect(fleet!.to).toEqual([{ podSelector: { matchLabels: deployment.spec.template.metadata.labels } }]);
    expect(fleet!.ports).toEqual([{ port: port.name, protocol: 'TCP' }]);
    expect(dns!.to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ]);
    expect(dns!.ports).toEqual([
      { port: 53, protocol: 'UDP' },
      { port: 53, protocol: 'TCP' },
    ]);
    expect(ingest!.ports).toEqual([{ port: 443, protocol: 'TCP' }]);
    expect(ingest!.to!.length).toBeGreaterThan(0);
    for (const peer of ingest!.to!) {
      // Addresses only, each a single host (IPv4 /32) or one provider's IPv6 /64: no selector, and
      // nothing as wide as 0.0.0.0/0.
      expect(Object.keys(peer)).toEqual(['ipBlock']);
      expect(peer.ipBlock!.cidr).toMatch(/^(\d{1,3}\.){3}\d{1,3}\/32$|^[0-9a-f:]+\/64$/);
    }
  });
});

describe('.dockerignore', () => {
  const rules = dockerignore().add(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n'));

  it.each([
    '.env',
    '.env.local',
    '.env.production',
    '.env.production.local',
    '.env.development',
    '.env.staging',
    '.env.test.local',
    'deploy/.env',
    'pages/.env.production',
  ])('keeps %s out of the build context', (file) => {
    expect(rules.ignores(file)).toBe(true);
  });

  it.each(['.env.example', 'package.json', 'pages/404.tsx', 'scripts/assemble-standalone.sh'])(
    'sends %s',
    (file) => {
      expect(rules.ignores(file)).toBe(false);
    },
  );
});
