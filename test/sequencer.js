// Runs the slowest test files first, so that no long file starts last and runs alone while the other workers idle.
// jest's own sequencer does this from its cache of the last run's durations; a fresh clone (every CI run) has no
// cache and falls back to file size, which put the slowest file (cr-differential, ~2 minutes) last: 52 s of one
// worker alone at the end of a 677 s run. test/durations.json holds the durations of a whole run (regenerate with
// `npm run test:durations`); a file it does not know yet (a new test) runs first.
const Sequencer = require('@jest/test-sequencer').default;
const { relative } = require('node:path');
const recorded = require('./durations.json');

class SlowestFirstSequencer extends Sequencer {
  sort(tests) {
    const expected = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached;
      const seconds = recorded[relative(test.context.config.rootDir, test.path)];
      return seconds == null ? Infinity : seconds * 1000;
    };
    return [...tests].sort((a, b) => expected(b) - expected(a));
  }
}

module.exports = SlowestFirstSequencer;
