// Preloaded into a server (NODE_OPTIONS=--require) by `SOAK_PROFILE=1 npm run bench:soak`: V8's CPU
// profiler and its sampling heap profiler over the server's whole life, the heap profiler keeping
// the samples of objects the collector has freed too, so that the profile shows where the garbage
// is made and not only what stays (`node --heap-prof` keeps only what is alive at exit, and
// `--cpu-prof` is not allowed in NODE_OPTIONS). Both are written to PROFILE_OUT_DIR as the process
// exits (cpu.cpuprofile, allocations.json). Bench only; never loaded by the app itself.
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.PROFILE_OUT_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  session.post('HeapProfiler.startSampling', {
    // One sample per 64 KiB allocated on average: thousands a minute under the soak.
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  let written = false;
  process.on('exit', () => {
    if (written) return;
    written = true;
    // An in-process session answers at once, so both are written within the exit handler.
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(path.join(dir, 'cpu.cpuprofile'), JSON.stringify(result.profile));
    });
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) fs.writeFileSync(path.join(dir, 'allocations.json'), JSON.stringify(result.profile));
    });
  });
}
