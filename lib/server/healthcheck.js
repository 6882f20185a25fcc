#!/usr/bin/env node
// The container's HEALTHCHECK: exit 0 when /api/health/live answers 200 within the timeout.
// Uses the image's own node, so the image needs no curl or wget.
const http = require('node:http');

const port = Number(process.env.PORT) || 3000;
const req = http.get({ host: '127.0.0.1', port, path: '/api/health/live', timeout: 2000 }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', () => process.exit(1));
