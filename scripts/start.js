// `npm start`: the production server (dist/lib/server/start.js, which `npm run build` compiles). Before
// the first build that file does not exist, and Node's own answer would be a stack trace: this says
// what to do instead. The server checks the rest itself (a build in NEXT_DIST_DIR, the settings).
const { existsSync } = require('node:fs');
const path = require('node:path');

/**
 * Starts the production server at `server`, or says what to do when there is none.
 * @returns {0 | 1} 1 when there is no server to start
 */
function start(server = path.join(__dirname, '../dist/lib/server/start.js')) {
  if (!existsSync(server)) {
    process.stderr.write('No production build here yet: run `npm run build` first, then `npm start`.\n');
    return 1;
  }
  require(server).runServer({ dev: false });
  return 0;
}

module.exports = { start };

if (require.main === module && start() === 1) process.exit(1);
