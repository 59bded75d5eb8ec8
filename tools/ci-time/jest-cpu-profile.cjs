// A jest setup file that records a V8 CPU profile of each test file, in the worker that runs it, into
// $JEST_CPU_PROFILE_DIR (`node --cpu-prof` on jest loses the workers' profiles: jest force-exits its workers).
//   JEST_CPU_PROFILE_DIR=/tmp/prof npx jest --ci FILES --setupFilesAfterEnv ./tools/ci-time/jest-cpu-profile.cjs
//   node tools/ci-time/cpu-profile-summary.js /tmp/prof
'use strict';
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');

const dir = process.env.JEST_CPU_PROFILE_DIR;
if (!dir) throw new Error('jest-cpu-profile.cjs writes to JEST_CPU_PROFILE_DIR: set it');
const session = new Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
afterAll((done) => {
  session.post('Profiler.stop', (err, result) => {
    if (!err) {
      const file = basename(expect.getState().testPath ?? 'unknown').replace(/\W/g, '_');
      writeFileSync(join(dir, `${file}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    }
    session.disconnect();
    done(err ?? undefined);
  });
}, 120_000);
