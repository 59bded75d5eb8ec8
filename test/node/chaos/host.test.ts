import { spawn, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { processAlive } from './host';

/** The restart of a cluster process waits for processAlive to be false before it starts the new one. */
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('processAlive', () => {
  (hasPython ? test : test.skip)(
    'a zombie thread-group leader whose other thread still runs is alive; once that thread ends it is not',
    async () => {
      // the main thread exits (pthread_exit) while a second one reads stdin until the test closes it: the leader is a
      // zombie meanwhile, for as long as the test needs (a loaded CI host took over 2 s to start python at all)
      const child = spawn('python3', [
        '-c',
        'import sys, threading, ctypes\nthreading.Thread(target=sys.stdin.read).start()\nctypes.CDLL(None).pthread_exit(None)',
      ]);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const pid = child.pid!;
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2];
      try {
        const deadline = Date.now() + 30_000;
        while (state() !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        expect(state()).toBe('Z');
        expect(processAlive(pid)).toBe(true);
      } finally {
        // the reading thread ends, and the process with it, whatever the checks above found
        child.stdin.end();
      }
      await exited;
      expect(processAlive(pid)).toBe(false);
    },
    60_000,
  );

  test('a running process is alive, a pid that does not exist is not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 1)).toBe(false);
  });
});
