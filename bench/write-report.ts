import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Writes a benchmark's JSON report to `out`: the date, the command that makes it again, the machine, then `fields`. */
export function writeReport(out: string, command: string, fields: Record<string, unknown>): void {
  const report = {
    date: new Date().toISOString(),
    command,
    machine: { cpus: os.cpus().length, loadavg: os.loadavg() },
    ...fields,
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
  console.log(`written ${out}`);
}
