// The README's deployment steps, run as written against the manifests: every path they name
// resolves from where it is used, the image they build is the one they push, and the Deployment
// that `kubectl apply -k` would apply runs exactly that image. (No kustomize or Docker here:
// the few kustomize rules the steps rely on are applied below.)
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readSettings } from '@lib/config/settings';

const ROOT = path.resolve(__dirname, '../../..');

interface Kustomization {
  resources: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

/** The shell block of the README's "Deploying" section, one command per line. */
function deploymentSteps(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Deploying'));
  const block = /```sh\n([^]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no shell block under "Deploying"');
  return block.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));
}

/** The steps, interpreted: shell variables, `cd` (in a subshell or not), and the four tools. */
function run(steps: string[], version: string) {
  const vars: Record<string, string> = {};
  const expand = (text: string) =>
    text
      .replace(/\$\(node -p "require\('\.\/package\.json'\)\.version"\)/g, version)
      .replace(/"?\$\{?(\w+)\}?"?/g, (_all, name: string) => vars[name] ?? `<unset ${name}>`);
  let cwd = ROOT;
  const built: string[] = [];
  const pushed: string[] = [];
  const edits: { folder: string; name: string; image: string }[] = [];
  const applied: string[] = [];

  const command = (line: string, where: string): string => {
    const words = expand(line).replaceAll('"', '').trim().split(/\s+/);
    if (words[0] === 'cd') return path.resolve(where, words[1]!);
    if (words[0] === 'docker' && words[1] === 'build') built.push(words[words.indexOf('-t') + 1]!);
    else if (words[0] === 'docker' && words[1] === 'push') pushed.push(words[2]!);
    else if (words.slice(0, 4).join(' ') === 'kustomize edit set image') {
      const [name, image] = words[4]!.split(/=(.*)/);
      edits.push({ folder: where, name: name!, image: image! });
    } else if (words.slice(0, 2).join(' ') === 'kubectl apply' && words[2] === '-k')
      applied.push(path.resolve(where, words[3]!));
    else throw new Error(`a step this test does not know: ${line}`);
    return where;
  };

  for (const step of steps) {
    const assignment = /^(\w+)=(.*)$/.exec(step.trim());
    if (assignment) {
      vars[assignment[1]!] = expand(assignment[2]!);
      continue;
    }
    const subshell = /^\((.*)\)$/.exec(step.trim());
    let where = cwd;
    for (const part of (subshell?.[1] ?? step).split('&&')) where = command(part, where);
    if (!subshell) cwd = where;
  }
  return { built, pushed, edits, applied };
}

/** What `kubectl apply -k folder` applies, after the steps' `kustomize edit`s. */
function render(folder: string, edits: { folder: string; name: string; image: string }[]) {
  const kustomization = parseAllDocuments(
    readFileSync(path.join(folder, 'kustomization.yaml'), 'utf8'),
  )[0]!.toJS() as Kustomization;
  const images = [...(kustomization.images ?? [])];
  for (const edit of edits.filter((e) => e.folder === folder)) {
    const at = edit.image.lastIndexOf(':');
    const entry = { name: edit.name, newName: edit.image.slice(0, at), newTag: edit.image.slice(at + 1) };
    const index = images.findIndex((image) => image.name === edit.name);
    if (index === -1) images.push(entry);
    else images[index] = entry;
  }
  const manifests = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(folder, file), 'utf8')).map((doc) => doc.toJS()),
  );
  const deployment = manifests.find((m) => m.kind === 'Deployment');
  return (deployment.spec.template.spec.containers as { image: string }[]).map(({ image }) => {
    const name = image.split(':')[0]!;
    const rule = images.find((entry) => entry.name === name);
    if (!rule) return image;
    return `${rule.newName ?? name}:${rule.newTag ?? image.split(':')[1]}`;
  });
}

describe("the README's deployment steps", () => {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const outcome = run(deploymentSteps(), version);

  it('push the image they build, tagged with the app’s version', () => {
    expect(outcome.built).toHaveLength(1);
    expect(outcome.pushed).toEqual(outcome.built);
    expect(outcome.built[0]).toMatch(new RegExp(`/app-shell:${version.replaceAll('.', '\\.')}$`));
  });

  it('apply a folder that holds a kustomization, the one their edit changed', () => {
    expect(outcome.applied).toEqual([path.join(ROOT, 'deploy/kubernetes')]);
    expect(existsSync(path.join(outcome.applied[0]!, 'kustomization.yaml'))).toBe(true);
    expect(outcome.edits.map((edit) => edit.folder)).toEqual(outcome.applied);
  });

  it('make the Deployment run exactly the image they pushed', () => {
    expect(render(outcome.applied[0]!, outcome.edits)).toEqual(outcome.pushed);
  });

  it('without the edit, still run the app’s version, never a moving tag', () => {
    expect(render(path.join(ROOT, 'deploy/kubernetes'), [])).toEqual([`app-shell:${version}`]);
  });
});

describe('the hand-off secret step (docs/operations.md, which the README points to)', () => {
  const section = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const step =
    /^kubectl create secret generic (\S+) --from-literal=(\w+)="\$\(openssl rand -hex (\d+)\)"$/m.exec(
      section,
    );

  it('makes the Secret, and the key, the Deployment reads the hand-off secret from', () => {
    expect(step).not.toBeNull();
    const [deployment] = parseAllDocuments(
      readFileSync(path.join(ROOT, 'deploy/kubernetes/deployment.yaml'), 'utf8'),
    ).map((doc) => doc.toJS());
    const variable = (
      deployment.spec.template.spec.containers[0].env as {
        name: string;
        valueFrom?: { secretKeyRef?: { name: string; key: string } };
      }[]
    ).find(({ name }) => name === 'REPORT_HANDOFF_SECRET');
    expect(variable?.valueFrom?.secretKeyRef).toMatchObject({ name: step![1], key: step![2] });
  });

  it('makes a value the server takes: openssl rand -hex N writes 2N random hex digits', () => {
    const value = randomBytes(Number(step![3])).toString('hex');
    expect(readSettings({ REPORT_HANDOFF_SECRET: value }, { dsnAtBuild: null }).reportHandoffSecret).toBe(
      value,
    );
  });
});
