// The deployment files must agree with the app: probe paths it serves, the port it listens on, and a
// grace period that covers its whole shutdown.
import { readdirSync, readFileSync } from 'node:fs';
import dockerignore from '@balena/dockerignore';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readSettings } from '@lib/config/settings';
import { shutdownBudgetMs, shutdownSteps } from '@lib/lifecycle/shutdown-budget';
import { REFRESH_MS } from '@lib/fleet/directory';

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

  it('gives the pod a grace period that covers preStop and every step of the stop (lib/lifecycle/shutdown-budget.ts)', () => {
    const config = readSettings({ ...env, KUBERNETES_SERVICE_HOST: 'in-cluster' }, { dsnAtBuild: null });
    const preStopMs = (container.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
    // Each step with the value this Deployment gives it: its env, the settings' defaults on Kubernetes.
    expect(shutdownSteps(config).map(({ step, ms }) => [step, ms])).toEqual([
      ['drain', 5000],
      ['in-flight', 10_020],
      ['flush', 2000],
      ['hand-off', 5000],
    ]);
    const needed = preStopMs + shutdownBudgetMs(config);
    expect(preStopMs).toBe(2000);
    // 30 s (docs/operations.md), of which preStop and the stop take 24.
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(needed);
    expect(needed).toBe(24_020);
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
    // npm run dev likewise: scripts/dev.js compiles the server and runs it in its own process.
    expect(scripts.dev).toBe('exec node scripts/dev.js');
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

describe('The page cache component (page-cache/, docs/page-cache.md)', () => {
  interface ExecProbe {
    exec: { command: string[] };
    timeoutSeconds?: number;
    periodSeconds?: number;
    failureThreshold?: number;
  }
  interface StoreContainer {
    name: string;
    image: string;
    ports: { name: string; containerPort: number; protocol: string }[];
    env: {
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
    }[];
    command: string[];
    args: string[];
    readinessProbe?: ExecProbe;
    livenessProbe?: ExecProbe;
    resources: { requests: Record<string, string>; limits: Record<string, string> };
    securityContext: {
      readOnlyRootFilesystem?: boolean;
      allowPrivilegeEscalation?: boolean;
      capabilities?: { drop?: string[] };
    };
  }
  interface Peer {
    ipBlock?: { cidr: string };
    namespaceSelector?: { matchLabels: Record<string, string> };
    podSelector?: { matchLabels?: Record<string, string> };
  }
  interface Rule {
    from?: Peer[];
    to?: Peer[];
    ports?: { port: string | number; protocol: string }[];
  }
  interface Component {
    apiVersion: string;
    kind: string;
    resources: string[];
    patches: { path: string; target?: { kind: string; name: string } }[];
  }

  const FOLDER = 'page-cache';
  const componentText = readFileSync(path.join(K8S, FOLDER, 'kustomization.yaml'), 'utf8');
  const component = load(`${FOLDER}/kustomization.yaml`)[0] as unknown as Component;
  const manifests = component.resources.flatMap((file) => load(`${FOLDER}/${file}`));
  const ofKind = (kind: string) => {
    const found = manifests.find((m) => m.kind === kind);
    if (!found) throw new Error(`no ${kind} in the component`);
    return found;
  };
  const store = ofKind('Deployment') as Manifest & {
    spec: {
      replicas: number;
      strategy: { type: string };
      selector: { matchLabels: Record<string, string> };
      template: {
        metadata: { labels: Record<string, string> };
        spec: {
          securityContext: {
            runAsNonRoot?: boolean;
            runAsUser?: number;
            seccompProfile?: { type: string };
          };
          containers: StoreContainer[];
        };
      };
    };
  };
  const valkey = store.spec.template.spec.containers[0]!;
  const storeLabels = store.spec.template.metadata.labels;
  const appLabels = deployment.spec.template.metadata.labels;
  const valkeyPort = valkey.ports.find((p) => p.name === 'valkey')!;
  const service = ofKind('Service') as Manifest & {
    spec: {
      selector: Record<string, string>;
      ports: { port: number; targetPort: string; protocol: string }[];
    };
  };
  const storePolicy = ofKind('NetworkPolicy') as Manifest & {
    spec: {
      podSelector: { matchLabels?: Record<string, string> };
      policyTypes: string[];
      ingress: Rule[];
      egress: Rule[];
    };
  };
  /** Valkey's flags, `--name value` each, as the server reads them. */
  const flags = () => {
    const found = new Map<string, string>();
    for (let i = 0; i < valkey.args.length; i += 2) {
      expect(valkey.args[i]).toMatch(/^--[a-z-]+$/);
      found.set(valkey.args[i]!.slice(2), valkey.args[i + 1]!);
    }
    return found;
  };
  /** Bytes of a Kubernetes quantity (`256Mi`) or of a Valkey size (`192mb`: 1024-based, as Valkey reads it). */
  const bytes = (size: string) => {
    const match = /^(\d+)(Ki|Mi|Gi|kb|mb|gb)$/.exec(size);
    if (!match) throw new Error(`not a size this test reads: ${size}`);
    return Number(match[1]) * 1024 ** ('kmg'.indexOf(match[2]![0]!.toLowerCase()) + 1);
  };

  /**
   * The app's manifests with the component on: its resources, and its patches as kustomize applies
   * them (a strategic merge of lists by `name`; JSON patches that add to the end of a list). Only the
   * kinds of patch the component uses: anything else fails here rather than being half applied.
   */
  function withComponent(): Manifest[] {
    const merge = (into: unknown, patch: unknown): unknown => {
      if (Array.isArray(into) && Array.isArray(patch)) {
        const merged = [...into] as { name?: string }[];
        for (const item of patch as { name?: string }[]) {
          if (item.name === undefined) throw new Error('a list merged without names');
          const at = merged.findIndex((existing) => existing.name === item.name);
          if (at === -1) merged.push(item);
          else merged[at] = merge(merged[at], item) as { name?: string };
        }
        return merged;
      }
      if (into && patch && typeof into === 'object' && typeof patch === 'object') {
        const merged = { ...(into as Record<string, unknown>) };
        for (const [key, value] of Object.entries(patch)) merged[key] = merge(merged[key], value);
        return merged;
      }
      return patch;
    };
    let rendered = structuredClone(all);
    for (const patch of component.patches) {
      const documents = load(`${FOLDER}/${patch.path}`) as unknown[];
      if (!patch.target) {
        const smp = documents[0] as Manifest;
        rendered = rendered.map((m) =>
          m.kind === smp.kind && m.metadata.name === smp.metadata.name ? (merge(m, smp) as Manifest) : m,
        );
        continue;
      }
      const target = rendered.find(
        (m) => m.kind === patch.target!.kind && m.metadata.name === patch.target!.name,
      );
      if (!target) throw new Error(`no ${patch.target.kind} ${patch.target.name} to patch`);
      for (const operation of documents[0] as { op: string; path: string; value: unknown }[]) {
        const list = /^\/spec\/(\w+)\/-$/.exec(operation.path);
        if (operation.op !== 'add' || !list)
          throw new Error(`a patch this test does not apply: ${operation.path}`);
        (target.spec[list[1]!] as unknown[]).push(operation.value);
      }
    }
    return [...rendered, ...manifests];
  }

  it('is a kustomize Component, listing every file beside it, that the app’s kustomization leaves off', () => {
    expect(component).toEqual(
      expect.objectContaining({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' }),
    );
    const files = readdirSync(path.join(K8S, FOLDER)).filter(
      (f) => f.endsWith('.yaml') && f !== 'kustomization.yaml',
    );
    expect([...component.resources, ...component.patches.map((p) => p.path)].sort()).toEqual(files.sort());
    // Off by default: no components, and no pod of the base is given a store.
    expect((kustomization as { components?: string[] }).components).toBeUndefined();
    expect((container.env ?? []).map(({ name }) => name)).not.toContain('PAGE_CACHE_URL');
    expect(all.map((m) => m.metadata.name)).not.toContain(store.metadata.name);
    // And says how to turn it on.
    expect(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')).toMatch(
      /^# components:\n#   - page-cache$/m,
    );
  });

  it('runs one Valkey, of the official image pinned to a release, the old one gone before the new one starts', () => {
    expect(store.spec.replicas).toBe(1);
    expect(store.spec.strategy).toEqual({ type: 'Recreate' });
    expect(valkey.image).toMatch(/^valkey\/valkey:\d+\.\d+\.\d+-alpine\d+\.\d+(@sha256:[0-9a-f]{64})?$/);
    expect(storeLabels).toEqual(expect.objectContaining(store.spec.selector.matchLabels));
  });

  it('probes readiness and liveness with an authenticated PING, and checks the answer is PONG', () => {
    for (const probe of [valkey.readinessProbe, valkey.livenessProbe]) {
      expect(probe?.exec.command).toEqual([
        'sh',
        '-c',
        `[ "$(valkey-cli -p ${valkeyPort.containerPort} ping)" = PONG ]`,
      ]);
      expect(probe!.timeoutSeconds).toBeGreaterThanOrEqual(1);
    }
    // valkey-cli authenticates with VALKEYCLI_AUTH, the container's password.
    expect(valkey.env.map(({ name }) => name)).toContain('VALKEYCLI_AUTH');
    // A restart empties the store: liveness gives it at least 30 s.
    const { periodSeconds = 10, failureThreshold = 3 } = valkey.livenessProbe!;
    expect(periodSeconds * failureThreshold).toBeGreaterThanOrEqual(30);
  });

  it('sets requests and limits, and holds at most maxmemory (192 MiB), below its memory limit (256 MiB)', () => {
    expect(valkey.resources.requests).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
    expect(valkey.resources.limits).toEqual(expect.objectContaining({ memory: expect.any(String) }));
    const maxmemory = bytes(flags().get('maxmemory')!);
    const limit = bytes(valkey.resources.limits.memory!);
    expect(maxmemory).toBe(192 * 1024 ** 2);
    expect(limit).toBe(256 * 1024 ** 2);
    expect(maxmemory).toBeLessThanOrEqual(limit * 0.75);
    // Requested as much as its limit: a node short of memory does not evict the store first.
    expect(bytes(valkey.resources.requests.memory!)).toBe(limit);
  });

  it('keeps nothing on disk, and evicts the least recently used pages when full', () => {
    expect(Object.fromEntries(flags())).toEqual(
      expect.objectContaining({ save: '', appendonly: 'no', 'maxmemory-policy': 'allkeys-lru' }),
    );
    expect(flags().get('port')).toBe(String(valkeyPort.containerPort));
  });

  it('requires a password, from the Secret through its standard input, never in its arguments', () => {
    const password = valkey.env.find(({ name }) => name === 'VALKEYCLI_AUTH');
    expect(password?.value).toBeUndefined();
    // Not optional: a store without its Secret does not start, rather than start open.
    expect(password?.valueFrom).toEqual({ secretKeyRef: { name: 'app-shell-page-cache', key: 'password' } });
    const [shell, dashC, script, zero] = valkey.command;
    expect([shell, dashC, zero]).toEqual(['sh', '-c', 'valkey-server']);
    // Configuration from standard input (`-`), the password its one line.
    expect(script).toMatch(/^exec valkey-server - "\$@" <<EOF\nrequirepass \$VALKEYCLI_AUTH\nEOF\n$/m);
    // Anything but letters and digits is refused before the server could print it in a config error.
    expect(script).toContain(`'' | *[!0-9A-Za-z]*)`);
    expect(valkey.args.join(' ')).not.toMatch(/requirepass|VALKEYCLI_AUTH/);
  });

  it('runs as a numeric non-root user on a read-only root filesystem, with no privilege or capability', () => {
    const pod = store.spec.template.spec.securityContext;
    expect(pod.runAsNonRoot).toBe(true);
    expect(pod.runAsUser).toEqual(expect.any(Number));
    expect(pod.runAsUser).toBeGreaterThan(0);
    expect(pod.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(valkey.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('is reached by its Service at the host and port of the URL the Secret holds, a URL the app takes', () => {
    expect(storeLabels).toEqual(expect.objectContaining(service.spec.selector));
    expect(service.spec.ports).toEqual([
      { name: 'valkey', port: valkeyPort.containerPort, targetPort: 'valkey', protocol: 'TCP' },
    ]);
    const documented = /--from-literal=url="(rediss?:\/\/:\$PASSWORD@[^"]+)"/.exec(componentText)?.[1];
    expect(documented).toBeDefined();
    const url = new URL(documented!.replace('$PASSWORD', 'PASSWORD'));
    expect([url.hostname, Number(url.port)]).toEqual([service.metadata.name, service.spec.ports[0]!.port]);
    expect(readSettings({ PAGE_CACHE_URL: url.href }, { dsnAtBuild: null }).pageCacheUrl).toBe(url.href);
    // The store's pods and the app's are told apart: neither's selectors pick the other's.
    expect(storeLabels['app.kubernetes.io/name']).not.toBe(appLabels['app.kubernetes.io/name']);
  });

  it('admits only the app’s pods, to Valkey’s port, and lets the store out nowhere', () => {
    expect(storePolicy.spec.podSelector.matchLabels).toEqual(store.spec.selector.matchLabels);
    expect([...storePolicy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    expect(storePolicy.spec.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: appLabels } }],
        ports: [{ port: valkeyPort.containerPort, protocol: 'TCP' }],
      },
    ]);
    expect(storePolicy.spec.egress).toEqual([]);
  });

  it('gives the app PAGE_CACHE_URL from the Secret, and lets it out to the store’s pods and port only', () => {
    const rendered = withComponent();
    const app = rendered.find(
      (m) => m.kind === 'Deployment' && m.metadata.name === deployment.metadata.name,
    ) as typeof deployment | undefined;
    const appEnv = app!.spec.template.spec.containers[0]!.env as StoreContainer['env'];
    expect(appEnv.filter(({ name }) => name === 'PAGE_CACHE_URL')).toEqual([
      { name: 'PAGE_CACHE_URL', valueFrom: { secretKeyRef: { name: 'app-shell-page-cache', key: 'url' } } },
    ]);
    // The rest of the app's environment as it was.
    expect(appEnv.filter(({ name }) => name !== 'PAGE_CACHE_URL')).toEqual(container.env);
    const policy = rendered.find((m) => m.kind === 'NetworkPolicy' && m.metadata.name === 'app-shell')!;
    const base = byKind('NetworkPolicy').spec.egress as Rule[];
    expect(policy.spec.egress).toEqual([
      ...base,
      {
        to: [{ podSelector: { matchLabels: store.spec.selector.matchLabels } }],
        ports: [{ port: service.spec.ports[0]!.port, protocol: 'TCP' }],
      },
    ]);
  });

  it('holds no password anywhere in the repository’s deployment files or docs', () => {
    const files = (folder: string): string[] =>
      readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(`${folder}/${entry.name}`) : [`${folder}/${entry.name}`],
      );
    /** Every `{ name, value }` of a variable named as a credential, anywhere in a manifest. */
    const credentials = (node: unknown): string[] => {
      if (Array.isArray(node)) return node.flatMap(credentials);
      if (!node || typeof node !== 'object') return [];
      const { name, value } = node as { name?: unknown; value?: unknown };
      const own =
        typeof name === 'string' && /(PASSWORD|SECRET|AUTH|TOKEN|_URL)$/.test(name) && value !== undefined
          ? [`${name}=${String(value)}`]
          : [];
      return [...own, ...Object.values(node).flatMap(credentials)];
    };
    const scanned = [...files('deploy'), ...files('docs'), '.env.example', 'README.md'];
    const urls: string[] = [];
    for (const file of scanned) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      // A store URL's password is the placeholder, or the shell variable the Secret is made from.
      for (const [url, password] of text.matchAll(/rediss?:\/\/[^:\s@/]*:([^@\s]+)@/g)) {
        urls.push(url);
        expect(`${file}: ${password}`).toMatch(/: \$?PASSWORD$/);
      }
      if (!file.startsWith('deploy/')) continue;
      // Valkey's password only ever from its environment.
      for (const [, password] of text.matchAll(/requirepass\s+(\S+)/g))
        expect(`${file}: ${password}`).toMatch(/: \$VALKEYCLI_AUTH$/);
      if (!/\.ya?ml$/.test(file)) continue;
      for (const manifest of parseAllDocuments(text).map((doc) => doc.toJS() as unknown)) {
        // No Secret is committed: the team creates it.
        expect(`${file}: ${(manifest as { kind?: string } | null)?.kind}`).not.toMatch(/: Secret$/);
        // A variable that carries a credential comes from a Secret, never from a value written here.
        expect(credentials(manifest).map((found) => `${file}: ${found}`)).toEqual([]);
      }
    }
    expect(scanned).toContain('deploy/kubernetes/page-cache/app-deployment-patch.yaml');
    expect(urls.length).toBeGreaterThan(1);
  });
});
