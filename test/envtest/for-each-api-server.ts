/**
 * Runs one jest suite against the fake apiserver and, when envtest binaries are available, against a real
 * kube-apiserver too. Tests that need fault injection read `ctx.fake` (undefined on the real server) and skip.
 */
import { FakeApiServer, FakeApiServerOptions, startFakeApiServer } from '../fake-apiserver';
import { ApiServerEndpoint, findEnvtestAssets, startEnvtest } from './envtest';

export interface ApiServerUnderTest {
  readonly kind: 'fake' | 'envtest';
  readonly server: ApiServerEndpoint;
  /** The fake (faults, direct store access) — undefined against a real apiserver. */
  readonly fake?: FakeApiServer;
}

export interface ForEachApiServerOptions {
  readonly crds?: object[];
  readonly fake?: Omit<FakeApiServerOptions, 'crds'>;
}

/** Registers `${name} [fake]` and `${name} [envtest]` describe blocks; `fn` gets a getter valid inside tests. */
export function forEachApiServer(name: string, fn: (ctx: () => ApiServerUnderTest) => void, opts: ForEachApiServerOptions = {}): void {
  describe(`${name} [fake]`, () => {
    let current: ApiServerUnderTest | undefined;
    beforeAll(async () => {
      const fake = await startFakeApiServer({ ...opts.fake, crds: opts.crds });
      current = { kind: 'fake', server: fake, fake };
    });
    afterAll(async () => {
      await current?.server.close();
    });
    fn(() => {
      if (!current) throw new Error('forEachApiServer: server not started (use the getter inside tests/hooks)');
      return current;
    });
  });

  const lookup = findEnvtestAssets();
  if ('skipReason' in lookup) {
    console.log(`envtest: skipped — ${lookup.skipReason} (suite "${name}" ran against the fake apiserver only)`);
    describe.skip(`${name} [envtest]`, () => {
      fn(() => {
        throw new Error('envtest unavailable');
      });
    });
    return;
  }
  describe(`${name} [envtest]`, () => {
    let current: ApiServerUnderTest | undefined;
    beforeAll(async () => {
      const real = await startEnvtest({ crds: opts.crds });
      if (!real) throw new Error('envtest: binaries disappeared between lookup and start');
      current = { kind: 'envtest', server: real };
    }, 120_000);
    afterAll(async () => {
      await current?.server.close();
    }, 60_000);
    fn(() => {
      if (!current) throw new Error('forEachApiServer: server not started (use the getter inside tests/hooks)');
      return current;
    });
  });
}
