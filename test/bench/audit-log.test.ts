import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CONTROLLER_USER, countRequests, readAudit } from '../../bench/real-control-plane';

function entry(auditID: string, verb: string, resource: string, username = CONTROLLER_USER): string {
  return JSON.stringify({
    auditID,
    verb,
    user: { username },
    objectRef: { resource },
    responseStatus: { code: 200 },
    requestReceivedTimestamp: '2026-11-22T17:00:00.000Z',
    stageTimestamp: '2026-11-22T17:00:00.010Z',
  });
}

describe('bench audit log', () => {
  test('requests are read from the rotated files too (the apiserver rotates at 100 MiB)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-'));
    try {
      const log = path.join(dir, 'audit.log');
      fs.writeFileSync(
        path.join(dir, 'audit-2026-11-22T17-00-01.000.log'),
        [entry('a', 'create', 'deployments'), entry('b', 'patch', 'foos')].join('\n') + '\n',
      );
      fs.writeFileSync(path.join(dir, 'audit-2026-11-22T17-00-02.000.log'), entry('c', 'create', 'deployments') + '\n');
      fs.writeFileSync(path.join(dir, 'audit-policy.yaml'), 'not an audit log');
      fs.writeFileSync(
        log,
        [
          entry('c', 'create', 'deployments'),
          entry('d', 'get', 'foos', 'someone-else'),
          entry('e', 'update', 'foos'),
        ].join('\n') + '\n',
      );
      const requests = readAudit(log);
      expect(requests.map((r) => r.verb)).toEqual(['create', 'patch', 'create', 'update']);
      expect(countRequests(requests)).toEqual({ 'create deployments': 2, 'patch foos': 1, 'update foos': 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
