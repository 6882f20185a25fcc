// A step of `npm run build`, after the source maps: copies the files of earlier builds named by
// KEEP_STATIC_FROM into this build's static/ (never over one of its own), pruned by
// KEEP_STATIC_BUILDS and KEEP_STATIC_DAYS, and writes the build's carried-builds.json so the next
// build can carry them on. Why, and how the Dockerfile fills KEEP_STATIC_FROM: docs/fleet.md.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadEnvConfig } from '@next/env';
import { type Env, readVariable } from '../lib/config/variables';
import { filesBelow } from '../lib/files/files-below';
import { type BuildFiles, CARRIED_MANIFEST, parseManifest, planCarry } from '../lib/fleet/carried';
import { builtConfigText, parseBuiltConfig } from '../lib/server/build-output';

const ROOT = path.resolve(__dirname, '../..');

type Source = BuildFiles & { folder: string };

/**
 * The builds a static/ folder holds: its carried-builds.json beside it, or, for a folder without
 * one (a build made before this step existed), one build of every file in it, named by the folder
 * holding its _buildManifest.js and dated by that file.
 */
export function buildsIn(staticFolder: string): Source[] {
  const manifest = path.join(path.dirname(staticFolder), CARRIED_MANIFEST);
  if (existsSync(manifest)) {
    const builds = parseManifest(readFileSync(manifest, 'utf8'));
    if (!builds)
      throw new Error(`${manifest} is not a list of builds: remove it to carry every file as one build`);
    return builds.map((build) => ({ ...build, folder: staticFolder }));
  }
  const files = [...filesBelow(staticFolder)];
  // An empty folder (the Dockerfile's stand-in when no PREVIOUS_IMAGE is given) holds no build.
  if (files.length === 0) return [];
  const marker = files.find((file) => /^[^/]+\/_buildManifest\.js$/.test(file));
  const id = marker ? marker.split('/')[0]! : `unknown:${staticFolder}`;
  const builtAt = statSync(marker ? path.join(staticFolder, marker) : staticFolder).mtime.toISOString();
  return [{ id, builtAt, files, folder: staticFolder }];
}

/**
 * Carries the files KEEP_STATIC_FROM names into the build of the app at `root` (folders are
 * relative to it); returns the line `npm run build` prints.
 */
export function carryStatic(env: Env, now = Date.now(), root = ROOT): string {
  const problems: string[] = [];
  const dist = path.resolve(root, readVariable('distDir', env, problems));
  const from = readVariable('keepStaticFrom', env, problems) ?? [];
  const limits = {
    builds: readVariable('keepStaticBuilds', env, problems),
    days: readVariable('keepStaticDays', env, problems),
    now,
  };
  for (const folder of from)
    if (!existsSync(path.resolve(root, folder)))
      problems.push(`KEEP_STATIC_FROM names ${folder}, which does not exist`);
  if (problems.length > 0) throw new Error(`Invalid build configuration: ${problems.join('; ')}.`);

  const staticFolder = path.join(dist, 'static');
  const ownFiles = [...filesBelow(staticFolder)];
  // A deploymentId build is named by it: Next gives every such build one constant BUILD_ID, and
  // under it this build would take each earlier one for itself and carry none.
  // Stryker disable next-line StringLiteral: path.join reads '' as '.', the build's folder itself.
  const deploymentId = parseBuiltConfig(builtConfigText(dist, '.'))?.deploymentId;
  const own: BuildFiles = {
    id: deploymentId || readFileSync(path.join(dist, 'BUILD_ID'), 'utf8').trim(),
    builtAt: new Date(now).toISOString(),
    files: ownFiles,
  };
  const { kept, left } = planCarry(
    own.id,
    from.flatMap((folder) => buildsIn(path.resolve(root, folder))),
    limits,
  );
  const present = new Set(ownFiles);
  let copied = 0;
  const carried = kept.map(({ folder, ...build }) => {
    const files = build.files.filter((file) => existsSync(path.join(folder, file)));
    for (const file of files) {
      if (present.has(file)) continue;
      const target = path.join(staticFolder, file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(folder, file), target);
      present.add(file);
      copied += 1;
    }
    return { ...build, files };
  });
  writeFileSync(path.join(dist, CARRIED_MANIFEST), `${JSON.stringify({ builds: [own, ...carried] })}\n`);
  if (from.length === 0) return 'Carried files: none (KEEP_STATIC_FROM unset).';
  const leftOut = left.map(
    ({ id, why }) =>
      `${id} (${why === 'age' ? `older than ${limits.days} days` : `beyond ${limits.builds} builds`})`,
  );
  return `Carried files: ${copied} from ${carried.length} earlier build(s) (${carried.map((b) => b.id).join(', ') || 'none'})${leftOut.length ? `; left out: ${leftOut.join(', ')}` : ''}.`;
}

/**
 * The build's step itself: the app's .env files read as `next build` reads them for production
 * (into process.env), then the line it prints, or why it stopped. Returns the exit code.
 */
export function runCommand(root = ROOT): number {
  // Quiet about each .env file it loads (Next's own note), not about one it cannot read.
  loadEnvConfig(root, false, { info: () => {}, error: (...args: unknown[]) => console.error(...args) });
  try {
    console.log(carryStatic(process.env, Date.now(), root));
    return 0;
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: everything carryStatic throws is an Error (its own, fs's, JSON.parse's): never the String() branch.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

// Stryker disable next-line all: the command's entry, run only as `npm run build`'s step (every e2e build runs it, __tests__/support/builds.ts), never where a test imports the file; its work is runCommand.
if (require.main === module) process.exitCode = runCommand();
