// The paths and header the shell answers itself under /_next/ (no page can take a path there), shared
// by the server and the browser code that uses them.

/** Where an instance says who it is, for its peers (lib/fleet/stage.ts). */
export const IDENTITY_PATH = '/_next/app-shell/fleet';
/** Where a page that lost a build file says so, and whether it reloaded (./recovery.ts). */
export const LOST_FILE_PATH = '/_next/app-shell/lost-file';
/**
 * Set on every request one instance makes of another: a peer never forwards such a request. On an
 * identity question its value is the asker's instance id (lib/fleet/directory.ts).
 */
export const HOP_HEADER = 'x-app-shell-fleet-hop';
