import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import * as runtime from '../../runtime';
import { loadClientNode, requireEsm } from '../../runtime/client-node';
import { ApiError, fromApiException } from '../../runtime/errors';

const RUNTIME_DIR = join(__dirname, '../../runtime');

describe('runtime boundaries', () => {
  test('runtime never imports cdk8s, constructs or lib/ beyond its API-machinery leaf', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(RUNTIME_DIR).filter((f) => f.endsWith('.ts'))) {
      const src = readFileSync(join(RUNTIME_DIR, file), 'utf8');
      for (const m of src.matchAll(/(?:from|require\()\s*['"]([^'"]+)['"]/g)) {
        const intoLib = /(^|\/)lib(\/|$)/.test(m[1]) && !/^\.\.\/lib\/apimachinery\//.test(m[1]);
        if (/^(cdk8s|constructs)/.test(m[1]) || intoLib) offenders.push(`${file}: ${m[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test('runtime and construct library share one contract shape (lib/apimachinery ContractOf)', () => {
    const runtimeSide = readFileSync(join(RUNTIME_DIR, 'contract.ts'), 'utf8');
    const chartSide = readFileSync(join(RUNTIME_DIR, '../lib/operator/controller-contract.ts'), 'utf8');
    expect(runtimeSide).toMatch(/export type ControllerContract = ContractOf<ResourceRef>;/);
    expect(chartSide).toMatch(/export type ControllerContract = ContractOf<KindSelector>;/);
  });

  test('index exports the main building blocks', () => {
    for (const name of [
      'Manager',
      'ControllerBuilder',
      'RestClient',
      'ReadYourWritesClient',
      'EventRecorder',
      'applyOwned',
      'updateStatus',
      'setCondition',
      'finalizer',
      'controllerReference',
      'TerminalError',
      'RuntimeMetrics',
      'createLogger',
      'defineContract',
      'resourceRef',
    ]) {
      expect((runtime as Record<string, unknown>)[name]).toBeDefined();
    }
  });

  test('client-node loads in jest and its ApiException converts to ApiError', () => {
    expect(typeof loadClientNode().KubeConfig).toBe('function');
    const k8s = requireEsm<typeof import('@kubernetes/client-node')>(
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require, so that bundlers see the module
      () => require('@kubernetes/client-node'),
      '@kubernetes/client-node',
    );
    const ex = new k8s.ApiException(
      409,
      'conflict',
      JSON.stringify({ kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' }),
      { 'retry-after': '2' },
    );
    const err = fromApiException(ex, 'PUT', '/apis/x');
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 409, reason: 'Conflict', retryAfterSeconds: 2 });
    expect(runtime.isConflict(err)).toBe(true);
    const plain = new Error('x');
    expect(fromApiException(plain)).toBe(plain);
  });
});
