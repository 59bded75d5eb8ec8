import { spawn, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { processAlive } from './host';

/** The restart of a cluster process waits for processAlive to be false before it starts the new one. */
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('processAlive', () => {
  (hasPython ? test : test.skip)(
    'a zombie thread-group leader whose other thread still runs is alive; once that thread ends it is not',
    async () => {
      // the main thread exits (pthread_exit), a second one sleeps 2 s: the leader is a zombie meanwhile
      const child = spawn('python3', [
        '-c',
        'import threading, ctypes, time\nthreading.Thread(target=time.sleep, args=(2,)).start()\nctypes.CDLL(None).pthread_exit(None)',
      ]);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const pid = child.pid!;
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2];
      for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(state()).toBe('Z');
      expect(processAlive(pid)).toBe(true);
      await exited;
      expect(processAlive(pid)).toBe(false);
    },
  );

  test('a running process is alive, a pid that does not exist is not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 1)).toBe(false);
  });
});
