// Preloaded into a server (NODE_OPTIONS=--require) by `BENCH_PROFILE=1 npm run bench:product-pages`:
// V8's CPU profiler over a window the bench chooses, so that the profile holds the measured load and
// not the start or the warm-up. The first SIGUSR2 starts it; the second stops it and writes
// PROFILE_OUT (a .cpuprofile), then `PROFILE_OUT.done`. Bench only; never loaded by the app itself.
const fs = require('node:fs');
const inspector = require('node:inspector');

const out = process.env.PROFILE_OUT;
if (out) {
  const session = new inspector.Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(out, JSON.stringify(result.profile));
      fs.writeFileSync(`${out}.done`, error ? String(error) : 'ok');
    });
  });
}
