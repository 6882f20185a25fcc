// Reads a V8 CPU profile (`--cpu-prof`) or sampling heap profile (./profilers.js) of a
// server and says where the time or the bytes went, per answered request: by whose function it
// was spent in (Node, Next, React, the app's bundle, each of the shell's modules, GC), and by the
// shell's module that led to it (the nearest of the shell's frames up the stack), which is the
// pipeline's stage for a request. For `npm run bench:soak`'s SOAK_PROFILE=1.
const fs = require('node:fs');

/**
 * Whose code a frame is, by its script URL.
 * @param {{ url: string, functionName: string }} frame
 */
function owner({ url, functionName }) {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)')
    return functionName;
  const shell = shellModule(url);
  if (shell) return `shell: ${shell}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg === 'next') return /compiled\//.test(url) ? 'Next (its bundled packages)' : 'Next';
  if (pkg) return pkg;
  if (/\/\.next[^/]*\/server\//.test(url)) return "the app's bundle (pages, API routes)";
  if (url.startsWith('node:')) return `Node: ${url.slice(5).replace(/^internal\//, '')}`;
  return url === '' ? `native: ${functionName || '(anonymous)'}` : 'other';
}

/** The shell's own module a script URL is, as `lib/…/name`, or null. @param {string} url */
function shellModule(url) {
  if (url.includes('/node_modules/')) return null;
  return /\/dist\/(lib\/[^?#]+)\.js$/.exec(url)?.[1] ?? null;
}

/** @param {Map<string, number>} totals @param {string} key @param {number} value */
function add(totals, key, value) {
  totals.set(key, (totals.get(key) ?? 0) + value);
}

/** @param {Map<string, number>} totals @param {number} limit */
function top(totals, limit) {
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, limit);
}

/**
 * Bytes allocated (the garbage included), per request.
 * @param {string} file  a sampling heap profile
 * @param {number} requests  answered while it was taken
 */
function summariseAllocations(file, requests) {
  /** @typedef {{ callFrame: { url: string, functionName: string }, selfSize: number, children: Node[] }} Node */
  /** @type {{ head: Node }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byOwner = new Map();
  const byStage = new Map();
  let total = 0;
  /** @param {Node} node @param {string} stage */
  const walk = (node, stage) => {
    const here = shellModule(node.callFrame.url) ?? stage;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(byOwner, owner(node.callFrame), node.selfSize);
      add(byStage, here, node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, 'not under the shell’s code');
  return {
    totalBytes: total,
    bytesPerRequest: total / requests,
    byOwner: top(byOwner, 12),
    byStage: top(byStage, 12),
  };
}

/**
 * CPU per request.
 * @param {string} file  a CPU profile
 * @param {number} requests  answered while it was taken
 */
function summariseCpu(file, requests) {
  /** @type {{ nodes: { id: number, callFrame: { url: string, functionName: string }, children?: number[] }[], samples: number[], timeDeltas: number[] }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** The shell module nearest up the stack, per node. */
  const stageOf = new Map();
  /** @param {number} id @returns {string} */
  const stage = (id) => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    const up = parent.get(id);
    const found =
      (node && shellModule(node.callFrame.url)) ??
      (up === undefined ? 'not under the shell’s code' : stage(up));
    stageOf.set(id, found);
    return found;
  };
  const byOwner = new Map();
  const byStage = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    const micros = profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)') return;
    busy += micros;
    add(byOwner, owner(node.callFrame), micros);
    add(byStage, stage(id), micros);
  });
  return {
    busyMicros: busy,
    microsPerRequest: busy / requests,
    byOwner: top(byOwner, 12),
    byStage: top(byStage, 12),
  };
}

module.exports = { summariseAllocations, summariseCpu };
