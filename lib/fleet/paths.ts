// The paths and header the shell answers itself under /_next/ (no page can take a path there), shared
// by the server and the browser code that uses them.

/** Where an instance says who it is, for its peers (lib/fleet/stage.ts). */
// Stryker disable next-line StringLiteral: pinned by paths.test.ts, which StrykerJS does not run for it (see HOP_HEADER).
export const IDENTITY_PATH = '/_next/app-shell/fleet';
/**
 * Where a draining instance hands its waiting reports to a peer (lib/reporting/queue/hand-off.ts):
 * POST, one envelope each, with the fleet's shared secret.
 */
// Stryker disable next-line StringLiteral: pinned by paths.test.ts (see HOP_HEADER).
export const REPORTS_HANDOFF_PATH = '/_next/app-shell/reports';
/** Where a page that lost a build file says so, and whether it reloaded (./recovery.ts). */
export const LOST_FILE_PATH = '/_next/app-shell/lost-file';
/**
 * Set on every request one instance makes of another: a peer never forwards such a request. On an
 * identity question its value is the asker's instance id (lib/fleet/directory.ts).
 */
// Stryker disable next-line StringLiteral: pinned by paths.test.ts. StrykerJS runs such a constant's mutant only
// against the tests that load this module afresh (recovery.test.ts, through isolateModules), which never read it.
export const HOP_HEADER = 'x-app-shell-fleet-hop';
