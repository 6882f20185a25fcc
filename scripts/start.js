// `npm start`: the production server (dist/lib/server/start.js, which `npm run build` compiles). Before
// the first build that file does not exist, and Node's own answer would be a stack trace: this says
// what to do instead. The server checks the rest itself (a build in NEXT_DIST_DIR, the settings).
const { existsSync } = require('node:fs');
const path = require('node:path');

const server = path.join(__dirname, '../dist/lib/server/start.js');
if (!existsSync(server)) {
  process.stderr.write('No production build here yet: run `npm run build` first, then `npm start`.\n');
  process.exit(1);
}
require(server).runServer({ dev: false });
