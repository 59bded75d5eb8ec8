import { ApiError } from '../../runtime/errors';
import { createLogger } from '../../runtime/log';

describe('JSON logger', () => {
  test('one JSON object per line with merged child fields; levels below the minimum are dropped', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', sink: (l) => lines.push(l), fields: { app: 'foo' } });
    log.debug('hidden');
    log
      .child({ controller: 'foo', key: 'ns/a' })
      .warn('reconcile failed', { error: new ApiError(409, 'PUT', '/x', { reason: 'Conflict' }) });
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]);
    expect(parsed).toMatchObject({
      level: 'warn',
      msg: 'reconcile failed',
      app: 'foo',
      controller: 'foo',
      key: 'ns/a',
      error: { name: 'ApiError', code: 409 },
    });
    expect(parsed.error.message).toMatch(/PUT \/x: 409 Conflict/);
    expect(Date.parse(parsed.ts)).not.toBeNaN();
  });

  test('LOG_LEVEL picks the level', () => {
    const lines: string[] = [];
    const old = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'error';
    try {
      const log = createLogger({ sink: (l) => lines.push(l) });
      log.warn('no');
      log.error('yes');
    } finally {
      if (old === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = old;
    }
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['yes']);
  });
});
