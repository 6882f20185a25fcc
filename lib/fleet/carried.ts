// Which earlier builds' files a build carries (KEEP_STATIC_FROM), so that tabs opened before an update
// keep loading their lazy parts after every instance of their build has stopped. Pure: the plan is
// made here and carried out by scripts/carry-static.ts. Each build folder records its own files and
// those it carries in CARRIED_MANIFEST, beside static/, so the next build can carry them on, pruned.

/** Beside static/ in the build folder: never served (Next serves static/ only). */
export const CARRIED_MANIFEST = 'carried-builds.json';

export interface BuildFiles {
  id: string;
  /** When the build was made (ISO 8601). */
  builtAt: string;
  /** Its files, relative to static/, with / between folders. */
  files: string[];
}

export interface Manifest {
  /** This build first, then the earlier builds it carries, newest first. */
  builds: BuildFiles[];
}

export interface CarryLimits {
  /** Earlier builds kept at most. */
  builds: number;
  /** Older than this many days, an earlier build is left out. */
  days: number;
  now: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The earlier builds to carry: each build once (the first folder that has it wins), never this
 * build itself, none older than `days`, at most `builds`, the newest first. `left` says why the
 * others were left out.
 */
export function planCarry<T extends BuildFiles>(
  own: string,
  earlier: T[],
  limits: CarryLimits,
): { kept: T[]; left: { id: string; why: 'age' | 'count' }[] } {
  const seen = new Set<string>([own]);
  const unique = earlier.filter((build) => !seen.has(build.id) && seen.add(build.id));
  const newest = unique.sort((a, b) => Date.parse(b.builtAt) - Date.parse(a.builtAt));
  const kept: T[] = [];
  const left: { id: string; why: 'age' | 'count' }[] = [];
  for (const build of newest) {
    const age = limits.now - Date.parse(build.builtAt);
    if (!(age <= limits.days * DAY_MS)) left.push({ id: build.id, why: 'age' });
    else if (kept.length >= limits.builds) left.push({ id: build.id, why: 'count' });
    else kept.push(build);
  }
  return { kept, left };
}

/** A manifest's builds, or null when `text` is not one (a hand-made folder, a damaged file). */
export function parseManifest(text: string): BuildFiles[] | null {
  try {
    const { builds } = JSON.parse(text) as Partial<Manifest>;
    if (!Array.isArray(builds)) return null;
    const valid = builds.filter(
      (build): build is BuildFiles =>
        // (A build that is not an object throws here, and the catch below refuses the manifest.)
        typeof build.id === 'string' &&
        typeof build.builtAt === 'string' &&
        !Number.isNaN(Date.parse(build.builtAt)) &&
        Array.isArray(build.files) &&
        build.files.every(isSafeRelative),
    );
    return valid.length === builds.length ? valid : null;
  } catch {
    return null;
  }
}

/**
 * A path inside static/: relative, no `..`, no absolute or drive prefix. (An empty name and a
 * leading `/` are refused with the empty segment they make.)
 */
export function isSafeRelative(file: unknown): boolean {
  return (
    typeof file === 'string' &&
    !file.includes('\\') &&
    !file.includes('\0') &&
    file.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}
